; Kotlin tag query. Capture names: see lazy_intel/parse/extract.py.
; A package header has no body, so it does not qualify names.

; ---- definitions
(class_declaration
  "class"
  name: (identifier) @name) @definition.class

(class_declaration
  "interface"
  name: (identifier) @name) @definition.interface

(class_declaration
  (modifiers (class_modifier "enum"))
  name: (identifier) @name) @definition.enum

(object_declaration
  name: (identifier) @name) @definition.object

(companion_object
  name: (identifier) @name) @definition.object

(function_declaration
  name: (identifier) @name) @definition.function

; extension functions: `fun String.shout()` is String.shout
(function_declaration
  (user_type . (identifier) @parent)
  .
  name: (identifier) @name) @definition.method

; `fun PathLookupResult?.requireParent()`: an extension of the type a nullable receiver names
(function_declaration
  (nullable_type (user_type . (identifier) @parent))
  .
  name: (identifier) @name) @definition.method

(secondary_constructor
  "constructor" @name) @definition.constructor

; `class Point(val x: Int)`: constructor parameters declared val/var are properties
(class_parameter
  ["val" "var"]
  (identifier) @name) @definition.property

(source_file
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.variable)

(source_file
  (property_declaration
    (modifiers (property_modifier "const"))
    (variable_declaration (identifier) @name)) @definition.constant)

(class_body
  (property_declaration
    (variable_declaration (identifier) @name)) @definition.property)

(type_alias
  type: (identifier) @name) @definition.type

(enum_entry
  (identifier) @name) @definition.constant

; ---- references
(call_expression
  .
  (identifier) @name) @reference.call

(call_expression
  .
  (navigation_expression
    .
    (_) @receiver
    (identifier) @name
    .)) @reference.call

; `a + b`, `-a`: run the operand's `operator fun plus` / `unaryMinus` (parse/operators.py)
(binary_expression) @reference.operator
(unary_expression) @reference.operator
(assignment) @reference.operator  ; `a += b`: `plusAssign`, else `plus`

; `class A : Base(x), Iface`: a constructor call names the superclass, a bare type an interface
(class_declaration
  "class"
  (delegation_specifiers
    (delegation_specifier
      (constructor_invocation
        (user_type . (identifier) @name))) @reference.inherit))

(class_declaration
  "class"
  (delegation_specifiers
    (delegation_specifier
      (user_type . (identifier) @name)) @reference.implement))

(object_declaration
  (delegation_specifiers
    (delegation_specifier
      (constructor_invocation
        (user_type . (identifier) @name))) @reference.inherit))

(object_declaration
  (delegation_specifiers
    (delegation_specifier
      (user_type . (identifier) @name)) @reference.implement))

(class_declaration
  "interface"
  (delegation_specifiers
    (delegation_specifier
      (user_type . (identifier) @name)) @reference.inherit))

(parameter
  (user_type . (identifier) @name) @reference.type)

(class_parameter
  (user_type . (identifier) @name) @reference.type)

(variable_declaration
  (user_type . (identifier) @name) @reference.type)

; `o as Foo`, `o as? Foo`: the type a cast names
(as_expression
  (user_type . (identifier) @name) @reference.type)

(function_declaration
  (function_value_parameters)
  .
  (user_type . (identifier) @name) @reference.type)

(type_arguments
  (type_projection
    (user_type . (identifier) @name) @reference.type))

; `b: Box?`: the type a nullable type names
(parameter
  (nullable_type (user_type . (identifier) @name) @reference.type))

(class_parameter
  (nullable_type (user_type . (identifier) @name) @reference.type))

(variable_declaration
  (nullable_type (user_type . (identifier) @name) @reference.type))

(function_declaration
  (function_value_parameters)
  .
  (nullable_type (user_type . (identifier) @name) @reference.type))

; ---- imports: `import a.b.C`, `import a.b.C as D`, `import a.b.*`
((import
  (qualified_identifier) @import.path
  .) @import
  (#not-match? @import "[*]\\s*$"))

(import
  (qualified_identifier) @import.path
  (identifier) @import.alias) @import

(import
  (qualified_identifier) @import.module
  "*" @import.wildcard) @import

; ---- value flow (declarations, assignments, for loops, parameters, returns)
(property_declaration
  (variable_declaration
    (identifier) @flow.target
    [(user_type) (nullable_type)]? @flow.type)
  "="
  .
  (_) @flow.value) @flow.assign

(property_declaration
  (variable_declaration
    (identifier) @flow.target
    [(user_type) (nullable_type)] @flow.type)) @flow.assign

(class_parameter
  ["val" "var"]
  (identifier) @flow.target
  [(user_type) (nullable_type)] @flow.type) @flow.assign

(assignment
  left: (_) @flow.target
  right: (_) @flow.value) @flow.assign

(for_statement
  (variable_declaration
    (identifier) @flow.target
    (user_type)? @flow.type)
  .
  (_) @flow.value) @flow.iterate

; `xs.forEach { x -> … }`, `xs.map { it.go() }`: the lambda's first parameter (or `it`) is each element
; (the lambda is the target: parse/flows.py reads its first parameter, else `it`)
((call_expression
   (navigation_expression
     (_) @flow.value
     (identifier) @_method .)
   (annotated_lambda (lambda_literal) @flow.target)) @flow.iterate
  (#match? @_method "^(forEach|map|mapNotNull|flatMap|filter|filterNot|first|firstOrNull|last|lastOrNull|find|any|all|none|onEach|sortedBy|sortedByDescending|groupBy|associateBy|associateWith|count|sumOf|maxBy|minBy|maxByOrNull|minByOrNull|partition|takeWhile|dropWhile|distinctBy)$"))

; (a nullable declared type, `b: Box?`, is its type too)
(function_value_parameters
  (parameter
    (identifier) @flow.target
    [(user_type) (nullable_type)] @flow.type) @flow.parameter)

(return_expression
  (_) @flow.value) @flow.return

; a declared return type: a call returns an instance of it (beside what the body returns)
(function_declaration
  (function_value_parameters)
  .
  [(user_type) (nullable_type)] @flow.type @flow.return)
