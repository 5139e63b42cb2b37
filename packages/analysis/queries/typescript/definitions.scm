; Definitions of TypeScript (grammar tree-sitter-typescript 0.23).
;
;   function f() {}         (function_declaration name: (identifier))
;   class C { m() {} }      (class_declaration name: (type_identifier)
;                             body: (class_body (method_definition name: (property_identifier))))
;   interface I {}          (interface_declaration name: (type_identifier))
;   type T = …              (type_alias_declaration name: (type_identifier))
;   enum E {}               (enum_declaration name: (identifier))
;   const x = …             (program (lexical_declaration (variable_declarator name: (identifier))))
;
; Methods are qualified by their class (`C.m`) by the extractor; a variable whose value is a
; function is reported as a function.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function

(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class

(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field

(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum

(program
  [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
   (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)])

(export_statement
  declaration: [(lexical_declaration (variable_declarator name: (identifier) @name) @definition.variable)
                (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)])

; Functions defined in a function body, by name: inner functions, handlers, hooks and inner
; components (the innermost enclosing definition is the symbol an edit writes):
;   function C() { const onClick = () => {…}; const f = useCallback(() => {…}, [a]); }
;   (statement_block (lexical_declaration (variable_declarator name: (identifier)
;     value: (arrow_function | function_expression | call_expression with a function argument))))
(statement_block
  (lexical_declaration
    (variable_declarator
      name: (identifier) @name
      value: [(arrow_function) (function_expression)
              (call_expression arguments: (arguments [(arrow_function) (function_expression)]))]) @definition.variable))
