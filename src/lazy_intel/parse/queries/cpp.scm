; inherits: c
; C++ tag query: C's patterns (c.scm) plus classes, namespaces, methods and templates.
; Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
(namespace_definition
  name: [(namespace_identifier) (nested_namespace_specifier)] @name) @definition.module

(class_specifier
  name: [
    (type_identifier) @name
    (qualified_identifier) @name
    (template_type name: (type_identifier) @name)
  ]
  body: (_)) @definition.class

; specialisations `struct X<T, U> {…}` and out-of-line `struct a::B {…}`, wherever they are
(struct_specifier
  name: [
    (qualified_identifier) @name
    (template_type name: (type_identifier) @name)
  ]
  body: (_)) @definition.struct

(declaration_list (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(template_declaration (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(declaration_list (union_specifier name: (type_identifier) @name body: (_)) @definition.union)
(declaration_list (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)

(alias_declaration
  name: (type_identifier) @name) @definition.type

; methods and out-of-line definitions: `size_t Connection::send(…) {…}` is Connection.send
(function_definition
  declarator: [
    (function_declarator declarator: [(field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)
    (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name))
    (reference_declarator (function_declarator declarator: [(identifier) (field_identifier) (qualified_identifier) (operator_name)] @name))
  ]) @definition.function

((function_definition
  declarator: (function_declarator
    declarator: (qualified_identifier
      scope: (namespace_identifier) @_class
      name: (identifier) @_method) @name)) @definition.constructor
  (#eq? @_class @_method))

; member declarations inside a class body
(field_declaration_list
  (field_declaration
    declarator: [
      (function_declarator declarator: [(field_identifier) (operator_name)] @name)
      (pointer_declarator declarator: (function_declarator declarator: (field_identifier) @name))
      (reference_declarator (function_declarator declarator: (field_identifier) @name))
    ]) @definition.method)

(field_declaration_list
  (declaration
    declarator: (function_declarator
      declarator: [(identifier) (destructor_name)] @name)) @definition.method)

((class_specifier
  name: (type_identifier) @_class
  body: (field_declaration_list
    [
      (declaration declarator: (function_declarator declarator: (identifier) @name))
      (function_definition declarator: (function_declarator declarator: (identifier) @name))
    ] @definition.constructor))
  (#eq? @_class @name))

((struct_specifier
  name: (type_identifier) @_class
  body: (field_declaration_list
    [
      (declaration declarator: (function_declarator declarator: (identifier) @name))
      (function_definition declarator: (function_declarator declarator: (identifier) @name))
    ] @definition.constructor))
  (#eq? @_class @name))

; namespace-level variables and constants
(namespace_definition
  body: (declaration_list
    (declaration
      declarator: [
        (identifier) @name
        (init_declarator declarator: (identifier) @name)
      ]) @definition.variable))

; ---- references
(call_expression
  function: (qualified_identifier
    name: (identifier)) @name) @reference.call

(call_expression
  function: (template_function
    name: (identifier) @name)) @reference.call

(call_expression
  function: (qualified_identifier
    scope: (_) @receiver
    name: (template_function
      name: (identifier) @name))) @reference.call

; `a + b`, `-a`: run the operand's member `operator+` / `operator-` (parse/operators.py)
(binary_expression) @reference.operator
(unary_expression) @reference.operator
(assignment_expression) @reference.operator  ; `a += b` (a plain `=` runs no method here)

(new_expression
  type: [
    (type_identifier) @name
    (qualified_identifier name: (type_identifier)) @name
    (template_type name: (type_identifier) @name)
  ]) @reference.instantiate

(base_class_clause
  [
    (type_identifier) @name
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: (type_identifier)) @name
    (qualified_identifier
      scope: (_) @receiver
      name: (template_type name: (type_identifier) @name))
  ] @reference.inherit)

(parameter_declaration
  type: [
    (template_type name: (type_identifier) @name)
    (qualified_identifier name: (type_identifier)) @name
  ] @reference.type)

(template_argument_list
  (type_descriptor
    type: (type_identifier) @name) @reference.type)

; a type named through a scope (`CollectionType::value`, `a::b::C`): one reference of the whole path,
; not also one of its last name or of an inner part of the path (`std::unique_ptr<T>` is its template's
; name and its argument, by the catch-all of c.scm)
[
  (qualified_identifier name: (type_identifier))
  (qualified_identifier name: (qualified_identifier name: (type_identifier)))
  (qualified_identifier name: (qualified_identifier name: (qualified_identifier name: (type_identifier))))
] @name @reference.type
(qualified_identifier name: (qualified_identifier) @reference.none)
(qualified_identifier name: (type_identifier) @reference.none)
; a scoped template (`std::numeric_limits<T>`): its name with the scope as receiver, so that `using
; numeric_limits = std::numeric_limits<T>;` is no use of the alias it defines
(qualified_identifier
  scope: (_) @receiver
  name: (template_type name: (type_identifier) @name)) @reference.type

; a template's type parameter (`template <typename T>`): `T` inside the declaration is the parameter,
; not a type of that name elsewhere
(template_declaration
  parameters: (template_parameter_list
    [
      (type_parameter_declaration (type_identifier) @binding.name)
      (optional_type_parameter_declaration name: (type_identifier) @binding.name)
      (variadic_type_parameter_declaration (type_identifier) @binding.name)
    ])) @binding.scope

; ---- imports: `using namespace std;` imports every name, `using std::string;` one
(using_declaration
  "namespace" @import.wildcard
  [(identifier) (qualified_identifier)] @import.module) @import

((using_declaration
  (qualified_identifier
    scope: (_) @import.module
    name: (_) @import.name)) @import
  (#not-match? @import "^using\\s+namespace"))

; ---- value flow (declarations, parameters, fields, assignments, range-for, returns)
(declaration
  type: (_) @flow.type
  declarator: [
    (identifier) @flow.target
    (pointer_declarator declarator: (identifier) @flow.target)
    (reference_declarator (identifier) @flow.target)
  ]) @flow.assign

(declaration
  type: (_) @flow.type
  declarator: (init_declarator
    declarator: [
      (identifier) @flow.target
      (pointer_declarator declarator: (identifier) @flow.target)
      (reference_declarator (identifier) @flow.target)
    ]
    value: (_) @flow.value)) @flow.assign

(parameter_list
  (parameter_declaration
    type: (_) @flow.type
    declarator: [
      (identifier) @flow.target
      (pointer_declarator declarator: (identifier) @flow.target)
      (reference_declarator (identifier) @flow.target)
    ]) @flow.parameter)

(field_declaration
  type: (_) @flow.type
  declarator: [
    (field_identifier) @flow.target
    (pointer_declarator declarator: (field_identifier) @flow.target)
    (reference_declarator (field_identifier) @flow.target)
  ]) @flow.assign

(assignment_expression
  left: (_) @flow.target
  right: (_) @flow.value) @flow.assign

(for_range_loop
  type: (_) @flow.type
  declarator: [
    (identifier) @flow.target
    (reference_declarator (identifier) @flow.target)
  ]
  right: (_) @flow.value) @flow.iterate

(return_statement
  (_) @flow.value) @flow.return

; a declared return type: a call returns an instance of it (beside what the body returns)
(function_definition
  type: [(type_identifier) (qualified_identifier)] @flow.type @flow.return)
