; C tag query (C++ inherits it). Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
; functions, also through pointer return types: `buffer_t *buffer_new(…) {…}`, and with the name in
; parentheses (`int (lua_gettop) (lua_State *L)`: kept from a function-like macro of the same name)
(function_definition
  declarator: [
    (function_declarator declarator: [(identifier) @name (parenthesized_declarator (identifier) @name)])
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (parenthesized_declarator (identifier) @name)]))
    (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (parenthesized_declarator (identifier) @name)])))
  ]) @definition.function

; prototypes: `int buffer_len(const buffer_t *b);`, `LUA_API int (lua_gettop) (lua_State *L);`
(declaration
  declarator: [
    (function_declarator declarator: [(identifier) @name (parenthesized_declarator (identifier) @name)])
    (pointer_declarator declarator: (function_declarator declarator: [(identifier) @name (parenthesized_declarator (identifier) @name)]))
  ]) @definition.function

; `typedef struct tag {…} name_t;` is the struct name_t (the whole typedef); other typedefs are types
(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

(type_definition
  type: (struct_specifier body: (_))
  declarator: (type_identifier) @name) @definition.struct

(type_definition
  type: (union_specifier body: (_))
  declarator: (type_identifier) @name) @definition.union

(type_definition
  type: (enum_specifier body: (_))
  declarator: (type_identifier) @name) @definition.enum

; struct/union/enum bodies outside a typedef (file level, inside #if/#ifdef, in a declaration or field)
(translation_unit (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_ifdef (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_if (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(preproc_else (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(declaration type: (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)
(field_declaration type: (struct_specifier name: (type_identifier) @name body: (_)) @definition.struct)

(translation_unit (union_specifier name: (type_identifier) @name body: (_)) @definition.union)
(preproc_ifdef (union_specifier name: (type_identifier) @name body: (_)) @definition.union)
(preproc_if (union_specifier name: (type_identifier) @name body: (_)) @definition.union)
(declaration type: (union_specifier name: (type_identifier) @name body: (_)) @definition.union)
(field_declaration type: (union_specifier name: (type_identifier) @name body: (_)) @definition.union)

(translation_unit (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_ifdef (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(preproc_if (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(declaration type: (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)
(field_declaration type: (enum_specifier name: (type_identifier) @name body: (_)) @definition.enum)

(enumerator
  name: (identifier) @name) @definition.constant

(field_declaration_list
  (field_declaration
    declarator: [
      (field_identifier) @name
      (pointer_declarator declarator: (field_identifier) @name)
      (pointer_declarator declarator: (pointer_declarator declarator: (field_identifier) @name))
      (array_declarator declarator: (field_identifier) @name)
    ]) @definition.field)

(preproc_def
  name: (identifier) @name) @definition.macro

(preproc_function_def
  name: (identifier) @name) @definition.macro

; file-level variables
(translation_unit
  (declaration
    declarator: [
      (identifier) @name
      (init_declarator declarator: (identifier) @name)
      (init_declarator declarator: (pointer_declarator declarator: (identifier) @name))
      (init_declarator declarator: (array_declarator declarator: (identifier) @name))
      (pointer_declarator declarator: (identifier) @name)
      (array_declarator declarator: (identifier) @name)
    ]) @definition.variable)

; ---- references
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    argument: (_) @receiver
    field: (field_identifier) @name)) @reference.call

(parameter_declaration
  type: [
    (type_identifier) @name
    (struct_specifier !body name: (_) @name)
    (union_specifier !body name: (_) @name)
    (enum_specifier !body name: (_) @name)
  ] @reference.type)

(function_definition
  type: [
    (type_identifier) @name
    (struct_specifier !body name: (_) @name)
  ] @reference.type)

(field_declaration
  type: [
    (type_identifier) @name
    (struct_specifier !body name: (_) @name)
    (union_specifier !body name: (_) @name)
    (enum_specifier !body name: (_) @name)
  ] @reference.type)

(declaration
  type: [
    (type_identifier) @name
    (struct_specifier !body name: (_) @name)
  ] @reference.type)

(sizeof_expression
  type: (type_descriptor
    type: (type_identifier) @name) @reference.type)

; `(Foo *) p`: the type a cast names
(cast_expression
  type: (type_descriptor
    type: [
      (type_identifier) @name
      (struct_specifier !body name: (_) @name)
    ]) @reference.type)

; every other type name, at any depth: a template's argument (`std::unique_ptr<Stack>`), `new T`'s
; in C++, a cast's, a return type behind `static`, a local's (a `type_identifier` names a type, never a
; value); a definition's own name is dropped by the extractor, and a reference of another kind at the
; same name (`new T` instantiates, `: public T` inherits) is kept instead of this one
(type_identifier) @name @reference.type

; a function or macro used as a value (C has no value flows, so these are the places a name is stored
; or handed on): assigned (`ac->ev.addRead = redisAeAddRead;`), an initializer (`{"assert",
; luaB_assert}`, `.read = my_read`, `int (*g)(void) = f;`), returned, its address taken (`&f`); a call's
; arguments are read from the call. Names of locals resolve to no definition and make no edge.
(assignment_expression right: (identifier) @name @reference.value)
(init_declarator value: (identifier) @name @reference.value)
(initializer_list (identifier) @name @reference.value)
(initializer_pair value: (identifier) @name @reference.value)
(return_statement (identifier) @name @reference.value)
(pointer_expression argument: (identifier) @name @reference.value)
; a name in capitals (a constant-like macro: `e->state & REDIS_DELETED`, `case KIND_A:`, `#if HAVE_X`,
; `char buf[MAX_LEN]`) where an operand stands
([
  (binary_expression [left: (identifier) right: (identifier)] @name @reference.value)
  (unary_expression argument: (identifier) @name @reference.value)
  (parenthesized_expression (identifier) @name @reference.value)
  (case_statement value: (identifier) @name @reference.value)
  (subscript_expression (identifier) @name @reference.value)
  (array_declarator size: (identifier) @name @reference.value)
  (conditional_expression [consequence: (identifier) alternative: (identifier)] @name @reference.value)
]
  (#match? @name "^_*[A-Z][A-Z0-9_]+$"))
(preproc_if condition: (identifier) @name @reference.value)
(preproc_elif condition: (identifier) @name @reference.value)
(preproc_ifdef name: (identifier) @name @reference.value)
; ... but not `#ifndef X` whose body defines X (an include guard, a default `#define`): no X is defined
; where it is tested
((preproc_ifdef name: (identifier) @reference.none (preproc_def name: (identifier) @_defined))
  (#eq? @reference.none @_defined))
((preproc_ifdef name: (identifier) @reference.none (preproc_function_def name: (identifier) @_defined))
  (#eq? @reference.none @_defined))
(preproc_defined (identifier) @name @reference.value)

; ---- imports
(preproc_include
  path: (_) @import.module) @import
