; Python tag query. Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

; a decorated definition's span includes its decorators
(decorated_definition
  definition: (function_definition
    name: (identifier) @name)) @definition.function

(decorated_definition
  definition: (class_definition
    name: (identifier) @name)) @definition.class

; module-level assignments are variables; class-level ones are fields
(module
  (expression_statement
    (assignment
      left: (identifier) @name) @definition.variable))

(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @name) @definition.field)))

; ---- docstrings
(function_definition
  body: (block . (expression_statement (string) @doc))) @doc.owner

(class_definition
  body: (block . (expression_statement (string) @doc))) @doc.owner

; ---- references
(call
  function: (identifier) @name) @reference.call

(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call

(class_definition
  superclasses: (argument_list
    [(identifier) (attribute)] @name @reference.inherit))

(type (identifier) @name @reference.type)

(decorator (identifier) @name @reference.call)

(decorator (attribute attribute: (identifier) @name) @reference.call)

; ---- imports
(import_statement
  name: (dotted_name) @import.module) @import

(import_statement
  name: (aliased_import
    name: (dotted_name) @import.module
    alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.module
  name: (dotted_name) @import.name) @import

(import_from_statement
  module_name: (_) @import.module
  name: (aliased_import
    name: (dotted_name) @import.name
    alias: (identifier) @import.alias)) @import

(import_from_statement
  module_name: (_) @import.module
  (wildcard_import) @import.wildcard) @import
