; JSX patterns shared by JavaScript and TSX: a capitalised element is a use of a component.

((jsx_opening_element
  name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

((jsx_self_closing_element
  name: (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

(jsx_opening_element
  name: (member_expression
    object: (_) @receiver
    property: (_) @name)) @reference.call

(jsx_self_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (_) @name)) @reference.call

; the closing tag names the component again (`</Layout>`): a reference of its own, as the compiler
; lists it (not a call: the opening tag is the one use that renders)
((jsx_closing_element
  name: (identifier) @name @reference.value)
  (#match? @name "^[A-Z]"))

(jsx_closing_element
  name: (member_expression
    object: (_) @receiver
    property: (_) @name) @reference.value)

; a component or handler passed as a value in an attribute: `onClick={handleStart}`,
; `FallbackComponent={MainErrorFallback}`
(jsx_attribute
  (jsx_expression
    (identifier) @name @reference.value))
