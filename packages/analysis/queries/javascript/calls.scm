; inherits: ecma,jsx
; Calls of JavaScript and JSX (grammar tree-sitter-javascript 0.23–0.25): those shared with
; TypeScript (`ecma/calls.scm`) and rendered components (`jsx/calls.scm`).
