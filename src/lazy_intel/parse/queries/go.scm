; Go tag query. Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
(function_declaration
  name: (identifier) @name) @definition.function

; `func (s *Server) Serve()` is Server.Serve: the receiver's type is the parent
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @parent
        (pointer_type (type_identifier) @parent)
        (generic_type type: (type_identifier) @parent)
        (pointer_type (generic_type type: (type_identifier) @parent))
      ]))
  name: (field_identifier) @name) @definition.method

; `type X struct {…}`: the whole declaration when it declares one type, else the spec
(type_declaration
  .
  (type_spec
    name: (type_identifier) @name
    type: (struct_type))
  .) @definition.struct

(type_declaration
  .
  (type_spec
    name: (type_identifier) @name
    type: (interface_type))
  .) @definition.interface

(type_declaration
  .
  [
    (type_spec name: (type_identifier) @name)
    (type_alias name: (type_identifier) @name)
  ]
  .) @definition.type

(type_declaration
  [(type_spec) (type_alias)]
  [
    (type_spec name: (type_identifier) @name)
    (type_alias name: (type_identifier) @name)
  ] @definition.type)

(type_declaration
  [
    (type_spec name: (type_identifier) @name)
    (type_alias name: (type_identifier) @name)
  ] @definition.type
  [(type_spec) (type_alias)])

(type_declaration
  [(type_spec) (type_alias)]
  (type_spec
    name: (type_identifier) @name
    type: (struct_type)) @definition.struct)

(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (struct_type)) @definition.struct
  [(type_spec) (type_alias)])

(type_declaration
  [(type_spec) (type_alias)]
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) @definition.interface)

(type_declaration
  (type_spec
    name: (type_identifier) @name
    type: (interface_type)) @definition.interface
  [(type_spec) (type_alias)])

(field_declaration_list
  (field_declaration
    name: (field_identifier) @name) @definition.field)

(interface_type
  (method_elem
    name: (field_identifier) @name) @definition.method)

; file-level constants and variables (one spec: the whole declaration)
(source_file
  (const_declaration
    .
    (const_spec name: (identifier) @name)
    .) @definition.constant)

(source_file
  (const_declaration
    (const_spec name: (identifier) @name) @definition.constant
    .
    (const_spec)))

(source_file
  (const_declaration
    (const_spec)
    .
    (const_spec name: (identifier) @name) @definition.constant))

(source_file
  (var_declaration
    .
    (var_spec name: (identifier) @name)
    .) @definition.variable)

(source_file
  (var_declaration
    (var_spec_list
      (var_spec name: (identifier) @name) @definition.variable)))

; ---- references
(call_expression
  function: [
    (identifier) @name
    (parenthesized_expression (identifier) @name)
  ]) @reference.call

(call_expression
  function: (selector_expression
    operand: (_) @receiver
    field: (field_identifier) @name)) @reference.call

(composite_literal
  type: [
    (type_identifier) @name
    (qualified_type) @name
    (generic_type type: (type_identifier) @name)
  ]) @reference.instantiate

; embedded struct fields and embedded interfaces
(field_declaration_list
  (field_declaration
    !name
    type: [
      (type_identifier) @name
      (qualified_type) @name
      (pointer_type [(type_identifier) (qualified_type)] @name)
    ]) @reference.inherit)

(interface_type
  (type_elem
    [(type_identifier) (qualified_type)] @name) @reference.inherit)

((parameter_declaration
   type: [
     (type_identifier) @name
     (qualified_type) @name
     (pointer_type [(type_identifier) (qualified_type)] @name)
     (slice_type element: [(type_identifier) (qualified_type)] @name)
   ] @reference.type)
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|u?int(8|16|32|64)?|rune|string|uintptr|any)$"))

; `o.(*Foo)`: the type an assertion names
((type_assertion_expression
   type: [
     (type_identifier) @name
     (qualified_type) @name
     (pointer_type [(type_identifier) (qualified_type)] @name)
   ] @reference.type)
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|u?int(8|16|32|64)?|rune|string|uintptr|any)$"))

((field_declaration
   name: (_)
   type: [
     (type_identifier) @name
     (qualified_type) @name
     (pointer_type [(type_identifier) (qualified_type)] @name)
     (slice_type element: [(type_identifier) (qualified_type)] @name)
   ] @reference.type)
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|u?int(8|16|32|64)?|rune|string|uintptr|any)$"))

((function_declaration
   result: [
     (type_identifier) @name
     (qualified_type) @name
     (pointer_type [(type_identifier) (qualified_type)] @name)
   ] @reference.type)
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|u?int(8|16|32|64)?|rune|string|uintptr|any)$"))

((method_declaration
   result: [
     (type_identifier) @name
     (qualified_type) @name
     (pointer_type [(type_identifier) (qualified_type)] @name)
   ] @reference.type)
  (#not-match? @name "^(bool|byte|complex64|complex128|error|float32|float64|u?int(8|16|32|64)?|rune|string|uintptr|any)$"))

; ---- imports (`.` imports every exported name; `_` and other names are aliases)
(import_spec
  !name
  path: (_) @import.module) @import

(import_spec
  name: [(package_identifier) (blank_identifier)] @import.alias
  path: (_) @import.module) @import

(import_spec
  name: (dot) @import.wildcard
  path: (_) @import.module) @import

; ---- value flow (declarations, assignments, range loops, parameters, receivers, returns)
; `x := f()` assigns f's value; `a, b := f()` unpacks what f returns; `a, b := x, y` pairs them
(short_var_declaration
  left: (expression_list . (_) @flow.target .)
  right: (expression_list . (_) @flow.value .)) @flow.assign

(short_var_declaration
  left: (expression_list (_) . (_)) @flow.target
  right: (expression_list (_) . (_)) @flow.value) @flow.assign

(short_var_declaration
  left: (expression_list (_) . (_)) @flow.target
  right: (expression_list . (_) @flow.value .)) @flow.assign

; `v, ok := x.(T)`, `v, ok := m[k]`: v is the asserted value, the element (`ok` a bool); the fuller
; match wins over the unpacking above (parse/flows.py keeps the match with more captures)
(short_var_declaration
  left: (expression_list . (_) @flow.target . (_) @_ok .)
  right: (expression_list . [(type_assertion_expression) (index_expression)] @flow.value .)) @flow.assign

(assignment_statement
  left: (expression_list . (_) @flow.target . (_) @_ok .)
  right: (expression_list . [(type_assertion_expression) (index_expression)] @flow.value .)) @flow.assign

; `switch v := x.(type) { case *Box: … }`: in a case of one type, v is that type (one flow per case:
; v holds every such case's type, as a variable assigned in several branches does)
((type_switch_statement
   alias: (expression_list . (identifier) @flow.target .)
   value: (_) @flow.value
   (type_case "case" . type: (_) @flow.type . ":") @flow.assign)
  (#not-eq? @flow.type "nil"))

(assignment_statement
  left: (expression_list . (_) @flow.target .)
  right: (expression_list . (_) @flow.value .)) @flow.assign

(assignment_statement
  left: (expression_list (_) . (_)) @flow.target
  right: (expression_list (_) . (_)) @flow.value) @flow.assign

(assignment_statement
  left: (expression_list (_) . (_)) @flow.target
  right: (expression_list . (_) @flow.value .)) @flow.assign

; `type errorMsgs []*Error`: a named slice or array type is a collection of its element type, read
; where a value is declared with it (graph/evaluate.py `declared_type`)
(type_spec
  name: (type_identifier) @flow.target
  type: [(slice_type) (array_type)] @flow.type) @flow.assign

; `var x T`, `var x = v`, `var x T = v` (one value: itself, not a tuple of one)
(var_spec
  name: (_) @flow.target
  type: (_) @flow.type) @flow.assign

(var_spec
  name: (_) @flow.target
  value: (expression_list . (_) @flow.value .)) @flow.assign

(var_spec
  name: (_) @flow.target
  type: (_) @flow.type
  value: (expression_list . (_) @flow.value .)) @flow.assign

(for_statement
  (range_clause
    left: (_) @flow.target
    right: (_) @flow.value)) @flow.iterate

(function_declaration
  parameters: (parameter_list
    (parameter_declaration
      name: (_) @flow.target
      type: (_) @flow.type) @flow.parameter))

(method_declaration
  parameters: (parameter_list
    (parameter_declaration
      name: (_) @flow.target
      type: (_) @flow.type) @flow.parameter))

; the receiver is not a positional parameter: it holds a value of its declared type
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      name: (_) @flow.target
      type: (_) @flow.type) @flow.assign))

; a single returned value, or several: a tuple the caller unpacks (`c, err := f()`; the positions
; are not kept, so each variable may hold any of the values; `nil` and errors from outside hold none)
(return_statement
  (expression_list . (_) @flow.value .)) @flow.return

(return_statement
  (expression_list (_) . (_)) @flow.value) @flow.return

; named results are variables of their declared types, and what a bare `return` returns: the one
; result's value, or the tuple of them
(function_declaration
  result: (parameter_list
    (parameter_declaration
      name: (_) @flow.target
      type: (_) @flow.type) @flow.assign))

(method_declaration
  result: (parameter_list
    (parameter_declaration
      name: (_) @flow.target
      type: (_) @flow.type) @flow.assign))

(function_declaration
  result: (parameter_list
    .
    (parameter_declaration
      .
      name: (_) @flow.value
      .
      type: (_))
    .) @flow.return)

(method_declaration
  result: (parameter_list
    .
    (parameter_declaration
      .
      name: (_) @flow.value
      .
      type: (_))
    .) @flow.return)

(function_declaration
  result: (parameter_list
    (parameter_declaration name: (_))
    .
    (parameter_declaration name: (_))) @flow.value @flow.return)

(method_declaration
  result: (parameter_list
    (parameter_declaration name: (_))
    .
    (parameter_declaration name: (_))) @flow.value @flow.return)

; declared result types: a call returns instances of them (several unnamed: a tuple the caller
; unpacks), beside what the body returns
(function_declaration
  result: [
    (type_identifier)
    (pointer_type)
    (qualified_type)
    (generic_type)
  ] @flow.type @flow.return)

(method_declaration
  result: [
    (type_identifier)
    (pointer_type)
    (qualified_type)
    (generic_type)
  ] @flow.type @flow.return)

(function_declaration
  result: (parameter_list
    (parameter_declaration
      !name)) @flow.type @flow.return)

(method_declaration
  result: (parameter_list
    (parameter_declaration
      !name)) @flow.type @flow.return)

; a struct field holds a value of its declared type (`c.engine.Run()`)
(field_declaration
  name: (_) @flow.target
  type: (_) @flow.type) @flow.assign

; a function literal is not a definition (its body is the enclosing function's): its typed
; parameters are variables there holding values of their types (handlers, goroutines, subtests)
(func_literal
  parameters: (parameter_list
    (parameter_declaration
      name: (_) @flow.target
      type: (_) @flow.type) @flow.assign))
