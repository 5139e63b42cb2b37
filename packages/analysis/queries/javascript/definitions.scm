; inherits: ecma
; Definitions of JavaScript (grammar tree-sitter-javascript 0.23–0.25): those shared with
; TypeScript (`ecma/definitions.scm`) and these.
;
;   class C { x = 1 }       (class_declaration name: (identifier)
;                             body: (class_body (field_definition property: (property_identifier))))
;   exports.f = …; module.exports.f = …  (assignment_expression left: (member_expression …))

(class_declaration name: (identifier) @name) @definition.class

(field_definition property: [(property_identifier) (private_property_identifier)] @name) @definition.field

(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: (_) @_target
        property: (property_identifier) @name)) @definition.commonjs)
  (#match? @_target "^(module[.])?exports$"))
