; inherits: typescript
; TSX is TypeScript plus JSX (grammar tree-sitter-typescript 0.23, tsx dialect).
;
;   <Button onClick={f} />   (jsx_self_closing_element name: (identifier))
;   <Panel>…</Panel>        (jsx_element open_tag: (jsx_opening_element name: (identifier)))
; A rendered component counts as a call of it.

(jsx_self_closing_element name: (identifier) @name) @call.jsx
(jsx_opening_element name: (identifier) @name) @call.jsx
(jsx_self_closing_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @call.jsx
(jsx_opening_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @call.jsx
