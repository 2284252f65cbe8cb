; Ruby tag query. Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
(module
  name: [(constant) (scope_resolution)] @name) @definition.module

(class
  name: [(constant) (scope_resolution)] @name) @definition.class

; `def` is a method inside a class or module (also inside `class << self`), a function at file level
(method
  name: (_) @name) @definition.function

(class
  body: (body_statement
    (method
      name: (_) @name) @definition.method))

(module
  body: (body_statement
    (method
      name: (_) @name) @definition.method))

(singleton_method
  name: (_) @name) @definition.method

; `attr_reader :name, :size` and `attr_accessor :name` define the reader methods `name` and `size` (in
; a class, a module or `class << self`); an `attr_writer`'s `name=` is assigned, never called by name
((body_statement
  (call
    !receiver
    method: (identifier) @_attr
    arguments: (argument_list (simple_symbol) @name @definition.method)))
  (#match? @_attr "^attr_(reader|accessor)$"))

; constants: `VERSION = '1.0'`
(program
  (assignment
    left: (constant) @name) @definition.constant)

(body_statement
  (assignment
    left: (constant) @name) @definition.constant)

; ---- references (py-tree-sitter ignores `#not-any-of?`: use `#not-match?`)
((call
  !receiver
  method: (identifier) @name) @reference.call
  (#not-match? @name "^(require|require_relative|load|include|extend|prepend|attr_(reader|writer|accessor)|private|protected|public|module_function)$"))

((call
  receiver: (_) @receiver
  method: (identifier) @name) @reference.call
  (#not-eq? @name "new"))

; `a + b`, `-a`, `a << x`: run the operand's method `+`, `-@`, `<<` (parse/operators.py)
(binary) @reference.operator
(unary) @reference.operator
(operator_assignment) @reference.operator  ; `a += b` is `a = a + b`

((call
  receiver: [(constant) (scope_resolution)] @name
  method: (identifier) @_new) @reference.instantiate
  (#eq? @_new "new"))

(superclass
  [(constant) (scope_resolution)] @name @reference.inherit)

((call
  !receiver
  method: (identifier) @_mixin
  arguments: (argument_list
    [(constant) (scope_resolution)] @name)) @reference.implement
  (#any-of? @_mixin "include" "extend" "prepend"))

; ---- imports: `require 'json'`, `require_relative '../lib/base'`, `load 'tasks.rb'`
((call
  !receiver
  method: (identifier) @_require
  arguments: (argument_list
    .
    (string (string_content) @import.module)
    .)) @import
  (#any-of? @_require "require" "require_relative" "load"))

; ---- value flow (local assignments, returns; a method's last expression is not read)
(assignment
  left: (identifier) @flow.target
  right: (_) @flow.value) @flow.assign

(return
  (argument_list
    .
    (_) @flow.value .)) @flow.return

; a method returns its last expression (`def make(env) … NonDelegate.new env end`)
(method
  body: (body_statement
    (_) @flow.value .) @flow.return)

(singleton_method
  body: (body_statement
    (_) @flow.value .) @flow.return)
