; inherits: ecma
; Identifier uses of TypeScript (grammar tree-sitter-typescript 0.23): those of JavaScript
; (`ecma/references.scm`) and type names.
;
;   let v: T    (type_identifier)

(type_identifier) @reference.type
