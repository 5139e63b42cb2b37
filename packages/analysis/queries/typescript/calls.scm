; inherits: ecma
; Calls of TypeScript (grammar tree-sitter-typescript 0.23): all in `ecma/calls.scm`, which
; JavaScript shares (TSX adds JSX's in `tsx/calls.scm`).
