; Imports and exports of TypeScript (grammar tree-sitter-typescript 0.23).
;
;   import d, { a as b, type T } from "./m"     import type { T } from "./m"
;   (import_statement (import_clause (identifier) (named_imports (import_specifier name: alias:)))
;                     source: (string (string_fragment)))
;   import x = require("./m")
;   (import_statement (import_require_clause (identifier) source: (string (string_fragment))))
;   export { a as b } from "./m"   export * from "./m"   export * as ns from "./m"
;   (export_statement (export_clause (export_specifier name: alias:)) source: (string (string_fragment)))
;   import("./m")      (call_expression function: (import) arguments: (arguments (string)))
;   require("./m")     (call_expression function: (identifier) arguments: (arguments (string)))
;   export { a as b }  export const x = 1  export default f
;
; The extractor reads names, aliases and bindings from the captured statement node.

(import_statement
  source: (string (string_fragment) @source)) @import.static

(import_statement
  (import_require_clause
    source: (string (string_fragment) @source))) @import.require

(export_statement
  source: (string (string_fragment) @source)) @import.reexport

(call_expression
  function: (import)
  arguments: (arguments . (string (string_fragment) @source))) @import.dynamic

(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string (string_fragment) @source))
  (#eq? @_require "require")) @import.require

(export_statement
  !source
  (export_clause)) @export.clause

(export_statement
  declaration: (_)) @export.declaration

(export_statement
  "default") @export.default

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
