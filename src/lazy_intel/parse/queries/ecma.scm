; Patterns shared by JavaScript, TypeScript and TSX (inherited, see languages.query_source).
; Only node types the three grammars share; class heritage and fields differ and live in each file.

; ---- definitions
(function_declaration
  name: (identifier) @name) @definition.function

(generator_function_declaration
  name: (identifier) @name) @definition.function

(class_declaration
  name: (_) @name) @definition.class

(class
  name: (_) @name) @definition.class

(method_definition
  name: (_) @name) @definition.method

((method_definition
  name: (property_identifier) @name) @definition.constructor
  (#eq? @name "constructor"))

; `const f = () => …`: the whole declaration when it declares one name, else the declarator.
(lexical_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])
  .) @definition.function

(variable_declaration
  .
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)])
  .) @definition.function

(_
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
  .
  (variable_declarator))

(_
  (variable_declarator)
  .
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)

; `Foo.prototype.bar = function …` is Foo.bar; `exports.f = …` and `obj.f = …` are f.
(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @parent
      property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]
  (#eq? @_prototype "prototype")) @definition.method

(assignment_expression
  left: (member_expression
    object: (_) @_object
    property: (property_identifier) @name)
  right: [(arrow_function) (function_expression)]
  (#not-match? @_object "(^this|[.]prototype)$")) @definition.function

(assignment_expression
  left: (identifier) @name
  right: [(arrow_function) (function_expression)]) @definition.function

; functions held in an object literal bound to a name: `const api = { post: (u) => … }`
(variable_declarator
  value: (object
    (pair
      key: (property_identifier) @name
      value: [(arrow_function) (function_expression)]) @definition.method))

; file-level variables (one declarator: the whole statement); UPPER_CASE ones are constants.
; `const x = require('x')` is an import, not a variable.
((program
  [
    (lexical_declaration . (variable_declarator name: (identifier) @name value: (_)? @_value) .)
    (variable_declaration . (variable_declarator name: (identifier) @name value: (_)? @_value) .)
    (export_statement
      declaration: [
        (lexical_declaration . (variable_declarator name: (identifier) @name value: (_)? @_value) .)
        (variable_declaration . (variable_declarator name: (identifier) @name value: (_)? @_value) .)
      ])
  ] @definition.variable)
  (#not-match? @_value "^require[(]"))

((program
  [
    (lexical_declaration . (variable_declarator name: (identifier) @name value: (_)? @_value) .)
    (variable_declaration . (variable_declarator name: (identifier) @name value: (_)? @_value) .)
    (export_statement
      declaration: [
        (lexical_declaration . (variable_declarator name: (identifier) @name value: (_)? @_value) .)
        (variable_declaration . (variable_declarator name: (identifier) @name value: (_)? @_value) .)
      ])
  ] @definition.constant)
  (#match? @name "^[A-Z][A-Z0-9_]*$")
  (#not-match? @_value "^require[(]"))

; ---- references
((call_expression
  function: (identifier) @name) @reference.call
  (#not-eq? @name "require"))

(call_expression
  function: (member_expression
    object: (_) @receiver
    property: (_) @name)) @reference.call

(new_expression
  constructor: (identifier) @name) @reference.instantiate

(new_expression
  constructor: (member_expression
    object: (_) @receiver
    property: (_) @name)) @reference.instantiate

; a JSDoc comment: the types in its `{…}` and the names its `{@link …}` and `@see …` name (parse/jsdoc.py)
((comment) @doc.comment
  (#match? @doc.comment "^/[*][*]"))

; a member read through a name, not called: `c.req`, `ElementBounds.boundsCache`, `ctx.path` (a getter
; runs, a field or a static member is read; the name is referenced as the receiver), also where it is
; stored (`Dialog.displayName = 'Dialog'`: a setter runs); the callee of a call or a `new` is the call's
; own reference (the extractor drops the read there). A read through `this`, a call's result or another
; member names no definition as its receiver and is left out (a third of a React tree's references)
(member_expression
  object: (identifier) @receiver
  property: (property_identifier) @name) @reference.read

; the names a module exports from its own scope: `export { a, b as c };`, `export default Box;`
(export_statement
  !source
  (export_clause
    (export_specifier
      name: (identifier) @name @reference.export)))

(export_statement
  value: (identifier) @name @reference.export)

; ---- imports
; `import React from 'react'` and `import * as path from 'path'`: the module bound to a local name
(import_statement
  (import_clause
    (identifier) @import.alias)
  source: (string) @import.module) @import

(import_statement
  (import_clause
    (namespace_import
      (identifier) @import.alias))
  source: (string) @import.module) @import

(import_statement
  (import_clause
    (named_imports
      (import_specifier
        name: (_) @import.name
        alias: (_)? @import.alias)))
  source: (string) @import.module) @import

; `import './polyfill'`
(import_statement
  .
  source: (string) @import.module) @import

; re-exports are imports too
(export_statement
  (export_clause
    (export_specifier
      name: (_) @import.name
      alias: (_)? @import.alias))
  source: (string) @import.module) @import

(export_statement
  "*" @import.wildcard
  source: (string) @import.module) @import

(export_statement
  (namespace_export
    (identifier) @import.alias)
  source: (string) @import.module) @import

; CommonJS: `const x = require('x')`, `const { a, b: c } = require('x')`, `require('x')`
((variable_declarator
  name: (identifier) @import.alias
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module .))) @import
  (#eq? @_require "require"))

((variable_declarator
  name: (object_pattern
    (shorthand_property_identifier_pattern) @import.name)
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module .))) @import
  (#eq? @_require "require"))

((variable_declarator
  name: (object_pattern
    (pair_pattern
      key: (_) @import.name
      value: (identifier) @import.alias))
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module .))) @import
  (#eq? @_require "require"))

((expression_statement
  (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module .)) @import)
  (#eq? @_require "require"))

((member_expression
  object: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) @import.module .)) @import)
  (#eq? @_require "require"))

; dynamic `import('x')`
(call_expression
  function: (import)
  arguments: (arguments . (string) @import.module)) @import

; ---- value flow (declarations, assignments, for-of loops, parameters, returns)
(variable_declarator
  name: (_) @flow.target
  value: (_) @flow.value) @flow.assign

(assignment_expression
  left: (_) @flow.target
  right: (_) @flow.value) @flow.assign

; `export { Hono as HonoBase }`: the module's name HonoBase holds what its Hono holds (an importer's
; `import { HonoBase }` reaches the class; a re-export with a source is an import, above)
(export_statement
  !source
  (export_clause
    (export_specifier
      name: (identifier) @flow.value
      alias: (identifier) @flow.target) @flow.assign))

(for_in_statement
  left: (_) @flow.target
  operator: "of"
  right: (_) @flow.value) @flow.iterate

; `xs.map(x => …)`, `xs.forEach(function (x) {…})`: the callback's first parameter is each element of
; `xs`, as in `for (const x of xs)` (the forms with parentheses: javascript.scm, typescript.scm)
((call_expression
   function: (member_expression
     object: (_) @flow.value
     property: (property_identifier) @_method)
   arguments: (arguments . (arrow_function parameter: (identifier) @flow.target))) @flow.iterate
  (#match? @_method "^(map|forEach|filter|find|findIndex|findLast|findLastIndex|some|every|flatMap)$"))

(return_statement
  (_) @flow.value) @flow.return

; `x instanceof Box`, `e instanceof errors.HTTPError`: the class tested against
(binary_expression
  operator: "instanceof"
  right: [(identifier) (member_expression)] @name @reference.type)
