; inherits: ecma
; TypeScript tag query (the patterns shared with JavaScript come from ecma.scm).
; Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
(interface_declaration
  name: (_) @name) @definition.interface

(abstract_class_declaration
  name: (_) @name) @definition.class

(enum_declaration
  name: (_) @name) @definition.enum

(type_alias_declaration
  name: (_) @name) @definition.type

; `namespace A.B { … }` is B inside A
(internal_module
  name: (identifier) @name) @definition.module

(internal_module
  name: (nested_identifier
    object: (_) @parent
    property: (_) @name)) @definition.module

(module
  name: [
    (identifier) @name
    (string (string_fragment) @name)
  ]) @definition.module

(function_signature
  name: (_) @name) @definition.function

(method_signature
  name: (_) @name) @definition.method

(abstract_method_signature
  name: (_) @name) @definition.method

(property_signature
  name: (_) @name) @definition.field

(public_field_definition
  name: (_) @name) @definition.field

(public_field_definition
  name: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; `xs.map((x) => …)`, `xs.filter(function (x) {…})`: each element of `xs` (ecma.scm has `x => …`);
; a declared parameter type is the parameter's own flow
((call_expression
   function: (member_expression
     object: (_) @flow.value
     property: (property_identifier) @_method)
   arguments: (arguments
     .
     [(arrow_function parameters: (formal_parameters . (required_parameter pattern: [(identifier) (object_pattern)] @flow.target)))
      (function_expression
        parameters: (formal_parameters . (required_parameter pattern: [(identifier) (object_pattern)] @flow.target)))])) @flow.iterate
  (#match? @_method "^(map|forEach|filter|find|findIndex|findLast|findLastIndex|some|every|flatMap)$"))

; `export const createStore = ((f) => …) as CreateStore`, `const f = (() => …) satisfies F`: a
; function whose value only the compiler sees through a type assertion
(lexical_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: [(as_expression . [(arrow_function) (function_expression)
                              (parenthesized_expression . [(arrow_function) (function_expression)] .)])
            (satisfies_expression . [(arrow_function) (function_expression)
                                     (parenthesized_expression . [(arrow_function) (function_expression)] .)])])
  .) @definition.function

(enum_body
  name: (_) @name @definition.constant)

(enum_body
  (enum_assignment
    name: (_) @name) @definition.constant)

; ---- references
(class_heritage
  (extends_clause
    value: [(identifier) (member_expression)] @name @reference.inherit))

(class_heritage
  (implements_clause
    [
      (type_identifier) @name
      (nested_type_identifier) @name
      (generic_type name: (_) @name)
    ] @reference.implement))

(extends_type_clause
  type: [
    (type_identifier) @name
    (nested_type_identifier) @name
    (generic_type name: (_) @name)
  ] @reference.inherit)

(type_annotation
  [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
    (array_type (type_identifier) @name)
  ] @reference.type)

(type_arguments
  [
    (type_identifier) @name
    (generic_type name: (type_identifier) @name)
  ] @reference.type)

(union_type
  (type_identifier) @name @reference.type)

; every other type name, at any depth: `x as Foo`, `e is Foo`, `Options['a']`, `keyof Foo`,
; `(a: A) => B`, `[A, B]`, `A & B`, `T extends U ? X : Y`, `v satisfies S` (a `type_identifier` is a
; name in a type, never a value); the names a declaration binds are not references: a definition's own
; name (dropped by the extractor) and a type parameter's, with its uses (below)
(type_identifier) @name @reference.type
(nested_type_identifier) @name @reference.type
; a type parameter (`<T>`, `<K extends keyof O>`): `T` inside the declaration is the parameter, not a
; definition elsewhere
(_
  type_parameters: (type_parameters
    (type_parameter
      name: (type_identifier) @binding.name))) @binding.scope
; `ns.Deep` is one reference (`Deep` of `ns`), not also a bare `Deep`
(nested_type_identifier
  name: (type_identifier) @reference.none)

; `typeof handler`, `StoryObj<typeof Spinner>`: the value a type is read from
(type_query
  (identifier) @name @reference.value)

; ---- imports
(import_statement
  (import_require_clause
    (identifier) @import.alias
    source: (string) @import.module)) @import

; ---- value flow: typed declarations and parameters (a parameter written as an object pattern,
; `({ scene }: Props) => …`, gives each of its names the member of the argument its key names)
(variable_declarator
  name: (_) @flow.target
  type: (type_annotation (_) @flow.type)
  value: (_) @flow.value) @flow.assign

(variable_declarator
  name: (_) @flow.target
  type: (type_annotation (_) @flow.type)) @flow.assign

(formal_parameters
  (required_parameter
    pattern: [(identifier) (object_pattern)] @flow.target
    type: (type_annotation (_) @flow.type)?) @flow.parameter)

(formal_parameters
  (required_parameter
    pattern: [(identifier) (object_pattern)] @flow.target
    type: (type_annotation (_) @flow.type)?
    value: (_) @flow.value) @flow.parameter)

(formal_parameters
  (optional_parameter
    pattern: [(identifier) (object_pattern)] @flow.target
    type: (type_annotation (_) @flow.type)?) @flow.parameter)

(public_field_definition
  name: (_) @flow.target
  type: (type_annotation (_) @flow.type)) @flow.assign

; a member declared in an interface or an object type (`interface P { scene: Scene }`, `type P = {
; scene: Scene }`) holds an instance of its type, as a class's typed field does
(property_signature
  name: (_) @flow.target
  type: (type_annotation (_) @flow.type)) @flow.assign

; a declared return type: a call returns an instance of it (beside what the body returns); arrow
; functions and function expressions are left out (one that is no definition would give its type to
; the enclosing function)
(function_declaration
  return_type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier)] @flow.type) @flow.return)

(method_definition
  return_type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier)] @flow.type) @flow.return)

(function_signature
  return_type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier)] @flow.type) @flow.return)

(method_signature
  return_type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier)] @flow.type) @flow.return)

(abstract_method_signature
  return_type: (type_annotation
    [(type_identifier) (generic_type) (nested_type_identifier)] @flow.type) @flow.return)
