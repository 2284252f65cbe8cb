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

; ---- imports
(preproc_include
  path: (_) @import.module) @import
