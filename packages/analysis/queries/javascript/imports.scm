; inherits: ecma
; Imports and exports of JavaScript, JSX and CommonJS (grammar tree-sitter-javascript 0.23–0.25):
; all in `ecma/imports.scm`, which TypeScript shares.
