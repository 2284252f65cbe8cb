; PHP tag query. Capture names: see lazy_intel/parse/extract.py.
; `namespace App\Http { … }` qualifies what it holds (`\` splits like `::`); the bodiless
; `namespace App\Http;` form does not.

; ---- definitions
(namespace_definition
  name: (namespace_name) @name
  body: (compound_statement)) @definition.module

(class_declaration
  name: (name) @name) @definition.class

(interface_declaration
  name: (name) @name) @definition.interface

(trait_declaration
  name: (name) @name) @definition.trait

(enum_declaration
  name: (name) @name) @definition.enum

(function_definition
  name: (name) @name) @definition.function

(method_declaration
  name: (name) @name) @definition.method

((method_declaration
  name: (name) @name) @definition.constructor
  (#eq? @name "__construct"))

; one symbol per declaration: `public const A = 1, B = 2;` yields the first name only
(property_declaration
  (property_element
    name: (variable_name (name) @name))) @definition.field

(const_declaration
  (const_element (name) @name)) @definition.constant

(enum_case
  name: (name) @name) @definition.constant

; ---- references
(function_call_expression
  function: [(name) (qualified_name)] @name) @reference.call

(member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(nullsafe_member_call_expression
  object: (_) @receiver
  name: (name) @name) @reference.call

(scoped_call_expression
  scope: (_) @receiver
  name: (name) @name) @reference.call

((object_creation_expression
  [(name) (qualified_name)] @name) @reference.instantiate
  (#not-match? @name "^(static|self|parent)$"))

(base_clause
  [(name) (qualified_name)] @name @reference.inherit)

(class_interface_clause
  [(name) (qualified_name)] @name @reference.implement)

; `use SomeTrait;` inside a class body
(declaration_list
  (use_declaration
    [(name) (qualified_name)] @name @reference.implement))

((named_type
  [(name) (qualified_name)] @name) @reference.type
  (#not-match? @name "^(static|self|parent)$"))

; ---- imports: `use A\B\C as D;`, `use A\B\{C, D as E};`, `require_once 'x.php';`
(namespace_use_declaration
  (namespace_use_clause
    .
    [
      (qualified_name
        prefix: (_) @import.module
        (name) @import.name)
      (name) @import.name
    ]
    alias: (name)? @import.alias)) @import

(namespace_use_declaration
  (namespace_name) @import.module
  body: (namespace_use_group
    (namespace_use_clause
      .
      [(name) (qualified_name)] @import.name
      alias: (name)? @import.alias))) @import

[
  (require_expression (string (string_content) @import.module))
  (require_expression (binary_expression right: (string (string_content) @import.module)))
  (require_once_expression (string (string_content) @import.module))
  (require_once_expression (binary_expression right: (string (string_content) @import.module)))
  (include_expression (string (string_content) @import.module))
  (include_expression (binary_expression right: (string (string_content) @import.module)))
  (include_once_expression (string (string_content) @import.module))
  (include_once_expression (binary_expression right: (string (string_content) @import.module)))
] @import

; ---- value flow (assignments, typed parameters and properties, promoted constructor parameters,
; returns, declared return types)
(assignment_expression
  left: (_) @flow.target
  right: (_) @flow.value) @flow.assign

(formal_parameters
  [
    (simple_parameter
      type: (_) @flow.type
      name: (_) @flow.target)
    (property_promotion_parameter
      type: (_) @flow.type
      name: (_) @flow.target)
  ] @flow.parameter)

; `private Client $client;` and `public function __construct(private Client $client)`: the
; property holds an instance of its type (`$this->client->send()`)
(property_declaration
  type: (_) @flow.type
  (property_element
    name: (_) @flow.target)) @flow.assign

(return_statement
  (_) @flow.value) @flow.return

(method_declaration
  return_type: (_) @flow.type @flow.return)

(function_definition
  return_type: (_) @flow.type @flow.return)
