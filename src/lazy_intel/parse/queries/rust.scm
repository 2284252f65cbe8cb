; Rust tag query. Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
(function_item
  name: (identifier) @name) @definition.function

(function_signature_item
  name: (identifier) @name) @definition.function

(struct_item
  name: (type_identifier) @name) @definition.struct

(enum_item
  name: (type_identifier) @name) @definition.enum

(union_item
  name: (type_identifier) @name) @definition.union

(trait_item
  name: (type_identifier) @name) @definition.trait

(type_item
  name: (type_identifier) @name) @definition.type

(associated_type
  name: (type_identifier) @name) @definition.type

(const_item
  name: (identifier) @name) @definition.constant

(static_item
  name: (identifier) @name) @definition.variable

(mod_item
  name: (identifier) @name
  body: (declaration_list)) @definition.module

(macro_definition
  name: (identifier) @name) @definition.macro

(field_declaration_list
  (field_declaration
    name: (field_identifier) @name) @definition.field)

(enum_variant_list
  (enum_variant
    name: (identifier) @name) @definition.constant)

; `impl X { fn f() }` and `impl Trait for X { … }` qualify their functions as X.f
(impl_item
  type: [
    (type_identifier) @name
    (generic_type type: (type_identifier) @name)
    (scoped_type_identifier name: (type_identifier) @name)
    (generic_type type: (scoped_type_identifier name: (type_identifier) @name))
  ]) @scope

; ---- references
(call_expression
  function: [
    (identifier) @name
    (scoped_identifier) @name
    (generic_function function: [(identifier) (scoped_identifier)] @name)
  ]) @reference.call

(call_expression
  function: (field_expression
    value: (_) @receiver
    field: (field_identifier) @name)) @reference.call

(call_expression
  function: (generic_function
    function: (field_expression
      value: (_) @receiver
      field: (field_identifier) @name))) @reference.call

(macro_invocation
  macro: [(identifier) (scoped_identifier)] @name) @reference.call

; `a + b`, `-a`: run a method of the operand's type (`Add::add`, `Neg::neg`; parse/operators.py)
(binary_expression) @reference.operator
(unary_expression) @reference.operator
(compound_assignment_expr) @reference.operator

((struct_expression
  name: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type_with_turbofish type: (_) @name)
  ]) @reference.instantiate
  (#not-eq? @name "Self"))

(impl_item
  trait: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.implement)

; supertraits: `trait Send: Clone + Debug`
(trait_item
  bounds: (trait_bounds
    [
      (type_identifier) @name
      (scoped_type_identifier) @name
      (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
    ] @reference.inherit))

(parameter
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
    (reference_type type: [(type_identifier) (scoped_type_identifier)] @name)
    (reference_type type: (generic_type type: [(type_identifier) (scoped_type_identifier)] @name))
  ] @reference.type)

(function_item
  return_type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.type)

(function_signature_item
  return_type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.type)

(field_declaration
  type: [
    (type_identifier) @name
    (scoped_type_identifier) @name
    (generic_type type: [(type_identifier) (scoped_type_identifier)] @name)
  ] @reference.type)

(type_arguments
  [
    (type_identifier) @name
    (scoped_type_identifier) @name
  ] @reference.type)

; ---- imports: `use a::b::{c, d as e, self}`, `use a::*`, `extern crate x`, `mod x;`
(use_declaration
  argument: (identifier) @import.module) @import

(use_declaration
  argument: (scoped_identifier
    path: (_) @import.module
    name: (identifier) @import.name)) @import

(use_declaration
  argument: (use_as_clause
    path: (identifier) @import.module
    alias: (identifier) @import.alias)) @import

(use_declaration
  argument: (use_as_clause
    path: (scoped_identifier
      path: (_) @import.module
      name: (identifier) @import.name)
    alias: (identifier) @import.alias)) @import

(use_declaration
  argument: (use_wildcard
    (_) @import.module) @import.wildcard) @import

(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list
      [
        (identifier) @import.name
        (scoped_identifier) @import.name
        (use_as_clause
          path: (_) @import.name
          alias: (identifier) @import.alias)
        (use_wildcard) @import.wildcard
      ]))) @import

(use_declaration
  argument: (scoped_use_list
    path: (_) @import.module
    list: (use_list
      (self)))) @import

; a use tree with a group inside a group (`use crate::{lines::{A, B}, searcher::C}`): read whole by
; the extractor (`@import.tree`); the patterns above take the flat groups
(use_declaration
  argument: (scoped_use_list
    list: (use_list (scoped_use_list))) @import.tree) @import

(use_declaration
  argument: (use_list
    [
      (identifier) @import.module
      (scoped_identifier
        path: (_) @import.module
        name: (identifier) @import.name)
    ])) @import

(extern_crate_declaration
  name: (identifier) @import.module
  alias: (identifier)? @import.alias) @import

(mod_item
  name: (identifier) @import.module
  !body) @import

; ---- value flow (let bindings, assignments, for loops, parameters, returns and tail expressions)
(let_declaration
  pattern: (_) @flow.target
  value: (_) @flow.value) @flow.assign

(let_declaration
  pattern: (_) @flow.target
  type: (_) @flow.type) @flow.assign

(let_declaration
  pattern: (_) @flow.target
  type: (_) @flow.type
  value: (_) @flow.value) @flow.assign

(assignment_expression
  left: (_) @flow.target
  right: (_) @flow.value) @flow.assign

(for_expression
  pattern: (_) @flow.target
  value: (_) @flow.value) @flow.iterate

; `xs.iter().map(|x| …)`: the closure's first parameter is each element
((call_expression
   function: (field_expression
     value: (_) @flow.value
     field: (field_identifier) @_method)
   arguments: (arguments . (closure_expression parameters: (closure_parameters . (identifier) @flow.target)))) @flow.iterate
  (#match? @_method "^(map|for_each|filter|filter_map|find|find_map|any|all|flat_map|inspect|position|take_while|skip_while|map_while|max_by_key|min_by_key|partition|retain|sort_by_key)$"))

(parameters
  (parameter
    pattern: (identifier) @flow.target
    type: (_) @flow.type) @flow.parameter)

; a closure is not a definition: its typed parameters are variables of the enclosing function
; holding values of their types (`|c: &Ctx| c.bind()`)
(closure_parameters
  (parameter
    pattern: (identifier) @flow.target
    type: (_) @flow.type) @flow.assign)

(return_expression
  (_) @flow.value) @flow.return

; a declared return type: a call returns an instance of it (beside what the body returns;
; `Option<T>`, `Result<T, E>`, `Box<T>` hold a `T`: graph/annotations.py)
(function_item
  return_type: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
    (reference_type)
  ] @flow.type @flow.return)

(function_signature_item
  return_type: [
    (type_identifier)
    (scoped_type_identifier)
    (generic_type)
    (reference_type)
  ] @flow.type @flow.return)

(function_item
  body: (block
    [
      (call_expression)
      (struct_expression)
      (identifier)
      (field_expression)
      (reference_expression)
      (scoped_identifier)
    ] @flow.value .) @flow.return)
