; inherits: ecma, jsx
; JavaScript tag query (the shared patterns come from ecma.scm and jsx.scm).
; Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
(field_definition
  property: (_) @name) @definition.field

(field_definition
  property: (_) @name
  value: [(arrow_function) (function_expression)]) @definition.method

; ---- references
(class_heritage
  [(identifier) (member_expression)] @name @reference.inherit)

; ---- value flow: parameters (TypeScript wraps them in required_parameter)
; `xs.map((x) => …)`, `xs.filter(function (x) {…})`: each element of `xs` (ecma.scm has `x => …`)
((call_expression
   function: (member_expression
     object: (_) @flow.value
     property: (property_identifier) @_method)
   arguments: (arguments
     .
     [(arrow_function parameters: (formal_parameters . [(identifier) (object_pattern)] @flow.target))
      (function_expression parameters: (formal_parameters . [(identifier) (object_pattern)] @flow.target))])) @flow.iterate
  (#match? @_method "^(map|forEach|filter|find|findIndex|findLast|findLastIndex|some|every|flatMap)$"))

; `function f({ scene, a: b })`: an object pattern's names are members of the argument
(formal_parameters
  [(identifier) (object_pattern)] @flow.target @flow.parameter)

(formal_parameters
  (assignment_pattern
    left: [(identifier) (object_pattern)] @flow.target
    right: (_) @flow.value) @flow.parameter)
