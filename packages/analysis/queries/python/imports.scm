; Imports of Python (grammar tree-sitter-python 0.25).
;
;   import a.b, c as d        (import_statement name: (dotted_name) name: (aliased_import name: alias:))
;   from ..pkg import f as g  (import_from_statement module_name: (relative_import (import_prefix) (dotted_name))
;                                                    name: (aliased_import name: (dotted_name) alias: (identifier)))
;   from m import *           (import_from_statement module_name: (dotted_name) (wildcard_import))
;
; The extractor reads the names, aliases and the relative level from the captured statement.

(import_statement) @import.python-import

(import_from_statement
  module_name: (_) @source) @import.python-from
