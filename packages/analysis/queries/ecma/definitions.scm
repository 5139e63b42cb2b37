; Definitions shared by JavaScript and TypeScript (grammars tree-sitter-javascript 0.23–0.25 and
; tree-sitter-typescript 0.23); `javascript/` and `typescript/` inherit them and add their own
; (classes and fields, whose nodes differ between the two grammars).
;
;   function f() {}         (function_declaration name: (identifier))
;   class C { m() {} }      (class_body (method_definition name: (property_identifier)))
;   const x = …             (program (lexical_declaration (variable_declarator name: (identifier))))
;
; Methods are qualified by their class (`C.m`) by the extractor; a variable whose value is a
; function is reported as a function.

(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function

(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method

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
