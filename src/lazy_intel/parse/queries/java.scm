; Java tag query. Capture names: see lazy_intel/parse/extract.py.
; A package clause has no body, so it does not qualify names: `Client.send`, not `com.x.Client.send`.

; ---- definitions
(class_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(annotation_type_declaration
  name: (identifier) @name) @definition.interface

(enum_declaration
  name: (identifier) @name) @definition.enum

(record_declaration
  name: (identifier) @name) @definition.record

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(compact_constructor_declaration
  name: (identifier) @name) @definition.constructor

(field_declaration
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.field

((field_declaration
  (modifiers "static" "final")
  declarator: (variable_declarator
    name: (identifier) @name)) @definition.constant
  (#match? @name "^[A-Z][A-Z0-9_]*$"))

(interface_body
  (constant_declaration
    declarator: (variable_declarator
      name: (identifier) @name)) @definition.constant)

(enum_constant
  name: (identifier) @name) @definition.constant

; ---- references
; a doc comment: the names its `{@link …}` and `@see …` tags link to (parse/javadoc.py)
((block_comment) @doc.comment
  (#match? @doc.comment "^/[*][*]"))

; `JsonNull.INSTANCE`, `FilterResult.BLOCK_ALL`: a field or constant read through its owner (a type
; named as the receiver is a use of it: resolve._receiver_reference_edges)
(field_access
  object: (_) @receiver
  field: (identifier) @name) @reference.read

(method_invocation
  !object
  name: (identifier) @name) @reference.call

(method_invocation
  object: (_) @receiver
  name: (identifier) @name) @reference.call

(object_creation_expression
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ]) @reference.instantiate

(superclass
  [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.inherit)

(super_interfaces
  (type_list
    [
      (type_identifier) @name
      (scoped_type_identifier) @name
      (generic_type [(type_identifier) (scoped_type_identifier)] @name)
    ] @reference.implement))

(extends_interfaces
  (type_list
    [
      (type_identifier) @name
      (scoped_type_identifier) @name
      (generic_type [(type_identifier) (scoped_type_identifier)] @name)
    ] @reference.inherit))

(formal_parameter
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.type)

(method_declaration
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.type)

(field_declaration
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.type)

(local_variable_declaration
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.type)

; `(Foo) o`: the type a cast names
(cast_expression
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.type)

(throws
  [(type_identifier) (scoped_type_identifier)] @name @reference.type)

(type_arguments
  [(type_identifier) (scoped_type_identifier)] @name @reference.type)

; ---- imports: `import a.b.C;`, `import static a.B.m;`, `import a.b.*;`
(import_declaration
  (scoped_identifier
    scope: (_) @import.module
    name: (identifier) @import.name)
  .) @import

(import_declaration
  [(identifier) (scoped_identifier)] @import.module
  (asterisk) @import.wildcard) @import

; ---- value flow (declarations, assignments, for-each loops, parameters, returns)
(local_variable_declaration
  type: (_) @flow.type
  declarator: (variable_declarator
    name: (_) @flow.target
    value: (_) @flow.value)) @flow.assign

(local_variable_declaration
  type: (_) @flow.type
  declarator: (variable_declarator
    name: (_) @flow.target)) @flow.assign

(field_declaration
  type: (_) @flow.type
  declarator: (variable_declarator
    name: (_) @flow.target)) @flow.assign

(field_declaration
  type: (_) @flow.type
  declarator: (variable_declarator
    name: (_) @flow.target
    value: (_) @flow.value)) @flow.assign

(assignment_expression
  left: (_) @flow.target
  right: (_) @flow.value) @flow.assign

(enhanced_for_statement
  type: (_) @flow.type
  name: (_) @flow.target
  value: (_) @flow.value) @flow.iterate

; `xs.forEach(x -> …)`, `xs.stream().map((x) -> …)`: the lambda's first parameter is each element
((method_invocation
   object: (_) @flow.value
   name: (identifier) @_method
   arguments: (argument_list
     .
     (lambda_expression
       parameters: [(identifier) @flow.target (inferred_parameters . (identifier) @flow.target)]))) @flow.iterate
  (#match? @_method "^(forEach|map|filter|flatMap|anyMatch|allMatch|noneMatch|peek|removeIf|mapToInt|mapToLong|mapToDouble|mapToObj|takeWhile|dropWhile)$"))

(formal_parameters
  (formal_parameter
    type: (_) @flow.type
    name: (_) @flow.target) @flow.parameter)

; `String... rest`: a parameter too (flows.py marks its type variadic: ["*", type])
(formal_parameters
  (spread_parameter
    (_) @flow.type
    (variable_declarator
      name: (identifier) @flow.target)) @flow.parameter)

(return_statement
  (_) @flow.value) @flow.return

; a declared return type: a call returns an instance of it (beside what the body returns)
(method_declaration
  type: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
  ] @flow.type @flow.return)
