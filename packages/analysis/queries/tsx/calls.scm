; inherits: typescript,jsx
; TSX is TypeScript plus JSX (grammar tree-sitter-typescript 0.23, tsx dialect): TypeScript's
; calls and rendered components (`jsx/calls.scm`).
