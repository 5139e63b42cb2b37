; inherits: ecma
; Imports and exports of TypeScript (grammar tree-sitter-typescript 0.23): those of JavaScript
; (`ecma/imports.scm`) and these.
;
;   import d, { a as b, type T } from "./m"     import type { T } from "./m"
;   (import_statement (import_clause (identifier) (named_imports (import_specifier name: alias:)))
;                     source: (string (string_fragment)))
;   import x = require("./m")
;   (import_statement (import_require_clause (identifier) source: (string (string_fragment))))
;   export = x         (export_statement "=" (identifier))
;
; The extractor reads names, aliases and bindings from the captured statement node.

(import_statement
  (import_require_clause
    source: (string (string_fragment) @source))) @import.require

(export_statement
  "=" (_) @name) @export.assignment

; `type` modifiers (`import type …`, `export type { A } from …`, `{ type A }`): the extractor
; marks the statement or specifier that starts where one of these does.
(import_statement "type") @import.type-token
(export_statement "type") @import.type-token
(import_specifier "type") @import.type-token
(export_specifier "type") @import.type-token
; `export type * from "./m"`: grammar 0.23.2 parses `type *` as an ERROR inside the statement.
(export_statement (ERROR "type") source: (_)) @import.type-token
