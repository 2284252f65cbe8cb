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
