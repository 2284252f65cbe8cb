; Scala tag query. Capture names: see lazy_intel/parse/extract.py.
; A `package a.b` clause without braces does not qualify names.

; ---- definitions
(class_definition
  name: (identifier) @name) @definition.class

(object_definition
  name: (identifier) @name) @definition.object

(trait_definition
  name: (identifier) @name) @definition.trait

(enum_definition
  name: (identifier) @name) @definition.enum

(package_object
  name: (identifier) @name) @definition.module

(package_clause
  name: (package_identifier) @name
  body: (_)) @definition.module

(function_definition
  name: (identifier) @name) @definition.function

(function_declaration
  name: (identifier) @name) @definition.function

; an operator method: `def +(o: M): M`, `def ::(x: A)` (its name is an operator identifier)
(function_definition
  name: (operator_identifier) @name) @definition.function

(function_declaration
  name: (operator_identifier) @name) @definition.function

; auxiliary constructor `def this(…)`
((function_definition
  name: (identifier) @name) @definition.constructor
  (#eq? @name "this"))

(type_definition
  name: (type_identifier) @name) @definition.type

(given_definition
  name: (identifier) @name) @definition.variable

(template_body
  [
    (val_definition pattern: (identifier) @name)
    (var_definition pattern: (identifier) @name)
    (val_declaration name: (identifier) @name)
    (var_declaration name: (identifier) @name)
  ] @definition.property)

(compilation_unit
  (val_definition
    pattern: (identifier) @name) @definition.constant)

(compilation_unit
  (var_definition
    pattern: (identifier) @name) @definition.variable)

; `class Client(val config: Config)` and case class parameters are members
(class_parameter
  ["val" "var"]
  name: (identifier) @name) @definition.property

(class_definition
  "case"
  class_parameters: (class_parameters
    (class_parameter
      name: (identifier) @name) @definition.property))

(simple_enum_case
  name: (identifier) @name) @definition.constant

(full_enum_case
  name: (identifier) @name) @definition.constant

; `extension (s: String) def shout` is String.shout
(extension_definition
  parameters: (parameters
    .
    (parameter
      type: [
        (type_identifier) @name
        (generic_type type: (type_identifier) @name)
      ]))) @scope

; ---- references
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: (identifier) @name)) @reference.call

(instance_expression
  [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (stable_type_identifier) @name
  ]) @reference.instantiate

; the first type after `extends` is the superclass, the ones after `with` are mixed-in traits
(class_definition
  extend: (extends_clause
    .
    [
      (type_identifier) @name
      (generic_type type: (type_identifier) @name)
      (stable_type_identifier) @name
    ] @reference.inherit))

(object_definition
  extend: (extends_clause
    .
    [
      (type_identifier) @name
      (generic_type type: (type_identifier) @name)
      (stable_type_identifier) @name
    ] @reference.inherit))

(extends_clause
  (_)
  [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (stable_type_identifier) @name
  ] @reference.implement)

(trait_definition
  extend: (extends_clause
    .
    [
      (type_identifier) @name
      (generic_type type: (type_identifier) @name)
      (stable_type_identifier) @name
    ] @reference.inherit))

(parameter
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ] @reference.type)

(class_parameter
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ] @reference.type)

(function_definition
  return_type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ] @reference.type)

(function_declaration
  return_type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ] @reference.type)

(given_definition
  return_type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
  ] @reference.type)


(type_arguments
  (type_identifier) @name @reference.type)

; ---- imports: `import a.b.C`, `import a.b.{C, D => E}`, `import a.b._` / `a.b.*`
; The path is a flat run of identifiers: the module is captured as its first and last identifier
; (the engine takes the text between them), the imported name is the final one.
(import_declaration
  .
  (identifier) @import.module
  .) @import

(import_declaration
  .
  (identifier) @import.module
  .
  (identifier) @import.name
  .) @import

(import_declaration
  .
  (identifier) @import.module
  (identifier) @import.module
  .
  (identifier) @import.name
  .) @import

(import_declaration
  .
  (identifier) @import.module
  .
  (namespace_wildcard) @import.wildcard) @import

(import_declaration
  .
  (identifier) @import.module
  (identifier) @import.module
  .
  (namespace_wildcard) @import.wildcard) @import

(import_declaration
  .
  (identifier) @import.module
  .
  (namespace_selectors
    [
      (identifier) @import.name
      (arrow_renamed_identifier
        name: (identifier) @import.name
        alias: (identifier) @import.alias)
    ])) @import

(import_declaration
  .
  (identifier) @import.module
  (identifier) @import.module
  .
  (namespace_selectors
    [
      (identifier) @import.name
      (arrow_renamed_identifier
        name: (identifier) @import.name
        alias: (identifier) @import.alias)
    ])) @import
