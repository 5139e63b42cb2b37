; Calls shared by JavaScript and TypeScript (grammars tree-sitter-javascript 0.23–0.25 and
; tree-sitter-typescript 0.23); `javascript/` and `typescript/` inherit them.
;
;   f(x)          (call_expression function: (identifier))
;   ns.f(x)       (call_expression function: (member_expression object: property: (property_identifier)))
;   new C()       (new_expression constructor: (identifier))
;
; The extractor adds the enclosing function's qualified name (`C.m`, `f`, or `<module>`).

(call_expression function: (identifier) @name) @call.function
(call_expression
  function: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @name)) @call.method
(new_expression constructor: (identifier) @name) @call.new
(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (property_identifier) @name)) @call.new
