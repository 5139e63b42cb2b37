; Imports of Python (grammar tree-sitter-python 0.25).
;
;   import a.b, c as d        (import_statement name: (dotted_name) name: (aliased_import name: alias:))
;   from ..pkg import f as g  (import_from_statement module_name: (relative_import (import_prefix) (dotted_name))
;                                                    name: (aliased_import name: (dotted_name) alias: (identifier)))
;   from m import *           (import_from_statement module_name: (dotted_name) (wildcard_import))
;   if TYPE_CHECKING:         (if_statement condition: (identifier)
;       from m import T                     consequence: (block (import_from_statement …)))
;   if typing.TYPE_CHECKING:  (if_statement condition: (attribute object: (identifier) attribute: (identifier)) …)
;
; The extractor reads the names, aliases and the relative level from the captured statement.

(import_statement) @import.python-import

(import_from_statement
  module_name: (_) @source) @import.python-from

; The block of `if TYPE_CHECKING:` (or `if <module>.TYPE_CHECKING:`): the extractor marks the
; imports inside it `guarded`. An `else:` branch is not guarded.
(if_statement
  condition: [
    (identifier) @_flag
    (attribute attribute: (identifier) @_flag)
  ]
  consequence: (block) @import.guard
  (#eq? @_flag "TYPE_CHECKING"))
