; C# tag query. Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
; `namespace Acme.Http { … }` is Http inside Acme. A file-scoped `namespace X;` has no body and
; does not qualify the declarations after it.
(namespace_declaration
  name: (identifier) @name) @definition.module

(namespace_declaration
  name: (qualified_name
    qualifier: (_) @parent
    name: (identifier) @name)) @definition.module

(class_declaration
  name: (identifier) @name) @definition.class

(interface_declaration
  name: (identifier) @name) @definition.interface

(struct_declaration
  name: (identifier) @name) @definition.struct

(enum_declaration
  name: (identifier) @name) @definition.enum

(record_declaration
  name: (identifier) @name) @definition.record

(delegate_declaration
  name: (identifier) @name) @definition.type

(method_declaration
  name: (identifier) @name) @definition.method

(constructor_declaration
  name: (identifier) @name) @definition.constructor

(destructor_declaration
  name: (identifier) @name) @definition.method

(property_declaration
  name: (identifier) @name) @definition.property

(field_declaration
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.field

(field_declaration
  (modifier "const")
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.constant

(event_field_declaration
  (variable_declaration
    (variable_declarator
      name: (identifier) @name))) @definition.field

(enum_member_declaration
  name: (identifier) @name) @definition.constant

; ---- references
((invocation_expression
  function: [
    (identifier) @name
    (generic_name (identifier) @name)
  ]) @reference.call
  (#not-eq? @name "nameof"))

(invocation_expression
  function: (member_access_expression
    expression: (_) @receiver
    name: [
      (identifier) @name
      (generic_name (identifier) @name)
    ])) @reference.call

(object_creation_expression
  type: [
    (identifier) @name
    (qualified_name) @name
    (generic_name (identifier) @name)
  ]) @reference.instantiate

; A base list does not say which entry is the class: by .NET convention `IName` is an interface.
(class_declaration
  (base_list
    [
      (identifier) @name
      (qualified_name name: (_) @name)
      (generic_name (identifier) @name)
    ] @reference.inherit)
  (#not-match? @name "^I[A-Z]"))

(record_declaration
  (base_list
    [
      (identifier) @name
      (qualified_name name: (_) @name)
      (generic_name (identifier) @name)
    ] @reference.inherit)
  (#not-match? @name "^I[A-Z]"))

((base_list
  [
    (identifier) @name
    (qualified_name name: (_) @name)
    (generic_name (identifier) @name)
  ] @reference.implement)
  (#match? @name "^I[A-Z]"))

(struct_declaration
  (base_list
    [
      (identifier) @name
      (qualified_name name: (_) @name)
      (generic_name (identifier) @name)
    ] @reference.implement))

(interface_declaration
  (base_list
    [
      (identifier) @name
      (qualified_name name: (_) @name)
      (generic_name (identifier) @name)
    ] @reference.inherit))

(parameter
  type: [
    (identifier) @name
    (qualified_name) @name
    (generic_name (identifier) @name)
  ] @reference.type)

(method_declaration
  returns: [
    (identifier) @name
    (qualified_name) @name
    (generic_name (identifier) @name)
  ] @reference.type)

(property_declaration
  type: [
    (identifier) @name
    (qualified_name) @name
    (generic_name (identifier) @name)
  ] @reference.type)

(variable_declaration
  type: [
    (identifier) @name
    (qualified_name) @name
    (generic_name (identifier) @name)
  ] @reference.type)

; `(Foo) o`, `o as Foo`: the type a cast names
(cast_expression
  type: [
    (identifier) @name
    (qualified_name) @name
    (generic_name (identifier) @name)
  ] @reference.type)

(as_expression
  right: [
    (identifier) @name
    (qualified_name) @name
    (generic_name (identifier) @name)
  ] @reference.type)

(type_argument_list
  [
    (identifier) @name
    (qualified_name) @name
  ] @reference.type)

; ---- imports: `using A.B;` and `using static A.B;` bring in every name; `using X = A.B;` an alias
(using_directive
  !name
  [(identifier) (qualified_name)] @import.module @import.wildcard) @import

(using_directive
  name: (identifier) @import.alias
  [(identifier) (qualified_name) (generic_name)] @import.module
  .) @import

; ---- value flow (declarations, fields, properties, assignments, foreach, parameters, returns)
(variable_declaration
  type: (_) @flow.type
  (variable_declarator
    name: (identifier) @flow.target
    .
    (_) @flow.value)) @flow.assign

(variable_declaration
  type: (_) @flow.type
  (variable_declarator
    name: (identifier) @flow.target)) @flow.assign

(property_declaration
  type: (_) @flow.type
  name: (identifier) @flow.target) @flow.assign

(assignment_expression
  left: (_) @flow.target
  right: (_) @flow.value) @flow.assign

(foreach_statement
  type: (_) @flow.type
  left: (_) @flow.target
  right: (_) @flow.value) @flow.iterate

; `xs.Select(x => …)`, `xs.Where((x) => …)`: the lambda's first parameter is each element
((invocation_expression
   function: (member_access_expression
     expression: (_) @flow.value
     name: (identifier) @_method)
   arguments: (argument_list
     .
     (argument
       (lambda_expression
         parameters: [(implicit_parameter) @flow.target
                      (parameter_list . (parameter name: (identifier) @flow.target))])))) @flow.iterate
  (#match? @_method "^(Select|SelectMany|Where|ForEach|Any|All|First|FirstOrDefault|Last|LastOrDefault|Single|SingleOrDefault|OrderBy|OrderByDescending|ThenBy|GroupBy|ToDictionary|ToLookup|Count|Sum|Min|Max|Average|TakeWhile|SkipWhile|Find|FindAll|Exists|TrueForAll|RemoveAll|DistinctBy|MaxBy|MinBy)$"))

(parameter_list
  (parameter
    type: (_) @flow.type
    name: (identifier) @flow.target) @flow.parameter)

; an extension method's `this` parameter: the method is a member of its type (graph: extension_members)
(parameter_list
  .
  (parameter
    (modifier) @_this
    type: (_) @flow.type
    name: (identifier) @flow.target) @flow.receiver
  (#eq? @_this "this"))

(return_statement
  (_) @flow.value) @flow.return

; a declared return type: a call returns an instance of it (beside what the body returns)
(method_declaration
  returns: (_) @flow.type @flow.return)
