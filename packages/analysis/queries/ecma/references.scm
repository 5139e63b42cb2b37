; Identifier uses shared by JavaScript and TypeScript (grammars tree-sitter-javascript 0.23–0.25
; and tree-sitter-typescript 0.23); `javascript/` and `typescript/` inherit them.
;
;   f(x)        (identifier)
;   ns.f        (member_expression object: (identifier) property: (property_identifier))
;   <Button/>   (jsx_self_closing_element name: (identifier))
;
; A single-node pattern's role capture is its own name (one capture per identifier halves the
; cost of this, the largest query). Definition sites are removed by the extractor.

(identifier) @reference.identifier
(member_expression
  object: (_) @receiver
  property: (property_identifier) @name) @reference.member
