; inherits: typescript
; TSX is TypeScript plus JSX (grammar tree-sitter-typescript 0.23, tsx dialect).
