; Calls of Python (grammar tree-sitter-python 0.25).
;
;   f(x)            (call function: (identifier))
;   self.m(x)       (call function: (attribute object: (identifier) attribute: (identifier)))
;   mod.sub.f(x)    (call function: (attribute object: (attribute …) attribute: (identifier)))
;
; The extractor adds the enclosing function's qualified name (`C.m`, `f`, or `<module>`).

(call function: (identifier) @name) @call.function
(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @call.method
