; JSX: a rendered component counts as a call of it. Inherited by `javascript/` (JSX is part of
; tree-sitter-javascript) and `tsx/` (tree-sitter-typescript's tsx dialect), not by `typescript/`,
; whose grammar has no JSX nodes.
;
;   <Button onClick={f} />   (jsx_self_closing_element name: (identifier))
;   <Panel>…</Panel>        (jsx_element open_tag: (jsx_opening_element name: (identifier)))
;   <Menu.Item />            (jsx_self_closing_element name: (member_expression object: property:))

(jsx_self_closing_element name: (identifier) @name) @call.jsx
(jsx_opening_element name: (identifier) @name) @call.jsx
(jsx_self_closing_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @call.jsx
(jsx_opening_element name: (member_expression object: (_) @receiver property: (property_identifier) @name)) @call.jsx
