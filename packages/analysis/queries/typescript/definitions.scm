; inherits: ecma
; Definitions of TypeScript (grammar tree-sitter-typescript 0.23): those shared with JavaScript
; (`ecma/definitions.scm`) and these.
;
;   function f(): T;        (function_signature name: (identifier))
;   class C { x = 1 }       (class_declaration name: (type_identifier)
;                             body: (class_body (public_field_definition name: (property_identifier))))
;   interface I {}          (interface_declaration name: (type_identifier))
;   type T = …              (type_alias_declaration name: (type_identifier))
;   enum E {}               (enum_declaration name: (identifier))

(function_signature name: (identifier) @name) @definition.function

(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class

(abstract_method_signature name: [(property_identifier) (private_property_identifier)] @name) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.field

(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
