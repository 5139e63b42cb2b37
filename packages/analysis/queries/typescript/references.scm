; Identifier uses of TypeScript (grammar tree-sitter-typescript 0.23).
;
;   f(x)        (identifier)
;   let v: T    (type_identifier)
;   ns.f        (member_expression object: (identifier) property: (property_identifier))
;
; A single-node pattern's role capture is its own name (one capture per identifier halves the
; cost of this, the largest query). Definition sites are removed by the extractor.

(identifier) @reference.identifier
(type_identifier) @reference.type
(member_expression
  object: (_) @receiver
  property: (property_identifier) @name) @reference.member
