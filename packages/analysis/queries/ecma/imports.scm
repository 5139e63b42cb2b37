; Imports and exports shared by JavaScript and TypeScript (grammars tree-sitter-javascript
; 0.23–0.25 and tree-sitter-typescript 0.23 name these nodes alike); `javascript/` and
; `typescript/` inherit them and add their own.
;
;   import d, { a as b } from "./m"    (import_statement (import_clause …) source: (string (string_fragment)))
;   export { a } from "./m"            (export_statement (export_clause …) source: (string (string_fragment)))
;   export * from "./m"   export * as ns from "./m"
;   import("./m")                      (call_expression function: (import) arguments: (arguments (string)))
;   import(/* c */ `./m`)              (arguments (comment) (template_string (string_fragment)))
;   const { a, b: c } = require("./m") (variable_declarator name: (object_pattern …)
;                                         value: (call_expression function: (identifier) arguments: …))
;   export const x = 1; export default f; export { a as b }
;
; The extractor reads names, aliases and bindings from the captured node and its parents.

(import_statement
  source: (string (string_fragment) @source)) @import.static

(export_statement
  source: (string (string_fragment) @source)) @import.reexport

; The specifier of a call is its first argument: a string, or a template literal without
; substitutions or escapes (`import(`./m`)`, one fragment and nothing else), after any comments
; (`import(/* webpackChunkName: "m" */ "./m")`: comments are named nodes, which the anchor would
; otherwise count as the first argument).
(call_expression
  function: (import)
  arguments: (arguments
    .
    (comment)*
    .
    [
      (string (string_fragment) @source)
      (template_string . (string_fragment) @source .)
    ])) @import.dynamic

(call_expression
  function: (identifier) @_require
  arguments: (arguments
    .
    (comment)*
    .
    [
      (string (string_fragment) @source)
      (template_string . (string_fragment) @source .)
    ])
  (#eq? @_require "require")) @import.require

(export_statement
  !source
  (export_clause)) @export.clause

(export_statement
  declaration: (_)) @export.declaration

(export_statement
  "default") @export.default
