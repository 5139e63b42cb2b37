; Definitions of Python (grammar tree-sitter-python 0.25).
;
;   def f(): …                (function_definition name: (identifier))
;   class C:                  (class_definition name: (identifier)
;       def m(self): …          body: (block (function_definition name: (identifier))))
;   X = 1                     (module (expression_statement (assignment left: (identifier))))
;
; A function inside a class is a method qualified by the class (`C.m`); module-level names not
; starting with `_` count as exported.

(function_definition name: (identifier) @name) @definition.function
(class_definition name: (identifier) @name) @definition.class
(module
  (expression_statement
    (assignment left: (identifier) @name) @definition.variable))
