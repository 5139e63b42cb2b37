; Identifier uses of TypeScript (grammar tree-sitter-typescript 0.23).
;
;   f(x)        (identifier)
;   let v: T    (type_identifier)
;   ns.f        (member_expression object: (identifier) property: (property_identifier))
;
; Definition sites are removed by the extractor.

(identifier) @reference.identifier @name
(type_identifier) @reference.type @name
(member_expression
  object: (_) @receiver
  property: (property_identifier) @name) @reference.member
