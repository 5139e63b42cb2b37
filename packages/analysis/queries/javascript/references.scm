; inherits: ecma
; Identifier uses of JavaScript (grammar tree-sitter-javascript 0.23–0.25): all in
; `ecma/references.scm`, which TypeScript shares.
