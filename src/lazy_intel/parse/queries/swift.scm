; Swift tag query. Capture names: see lazy_intel/parse/extract.py.

; ---- definitions
(class_declaration
  declaration_kind: ["class" "actor"]
  name: (type_identifier) @name) @definition.class

(class_declaration
  declaration_kind: "struct"
  name: (type_identifier) @name) @definition.struct

(class_declaration
  declaration_kind: "enum"
  name: (type_identifier) @name) @definition.enum

; `extension Client { func reset() }` qualifies reset as Client.reset
(class_declaration
  declaration_kind: "extension"
  name: (user_type . (type_identifier) @name)) @scope

(protocol_declaration
  name: (type_identifier) @name) @definition.protocol

(function_declaration
  name: (simple_identifier) @name) @definition.function

; an operator function: `static func == (a: W, b: W) -> Bool` (its name is an operator token)
(function_declaration
  name: ["==" "!=" "<" ">" "<=" ">=" "+" "-" "*" "/" "%" "+=" "-=" "*=" "/=" "%=" "!" "..." "..<"
         (custom_operator)] @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

(init_declaration
  "init" @name) @definition.constructor

(deinit_declaration
  "deinit" @name) @definition.method

(typealias_declaration
  name: (type_identifier) @name) @definition.type

(enum_entry
  name: (simple_identifier) @name @definition.constant)

(class_body
  (property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)

(protocol_body
  (protocol_property_declaration
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.property)

(source_file
  (property_declaration
    (value_binding_pattern mutability: "var")
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.variable)

(source_file
  (property_declaration
    (value_binding_pattern mutability: "let")
    name: (pattern bound_identifier: (simple_identifier) @name)) @definition.constant)

; ---- references
(call_expression
  .
  (simple_identifier) @name) @reference.call

(call_expression
  .
  (navigation_expression
    target: (_) @receiver
    suffix: (navigation_suffix
      suffix: (simple_identifier) @name))) @reference.call

; A class's first inheritance entry is taken as its superclass, the others as protocols.
(class_declaration
  declaration_kind: "class"
  name: (_)
  .
  (type_parameters)?
  .
  (inheritance_specifier
    inherits_from: (user_type . (type_identifier) @name)) @reference.inherit)

(class_declaration
  declaration_kind: "class"
  (inheritance_specifier)
  .
  (inheritance_specifier
    inherits_from: (user_type . (type_identifier) @name)) @reference.implement)

(class_declaration
  declaration_kind: ["struct" "enum" "extension" "actor"]
  (inheritance_specifier
    inherits_from: (user_type . (type_identifier) @name)) @reference.implement)

(protocol_declaration
  (inheritance_specifier
    inherits_from: (user_type . (type_identifier) @name)) @reference.inherit)

; (the grammar's field names are unreliable here: match the child types)
(parameter
  (user_type . (type_identifier) @name) @reference.type)

(parameter
  [(optional_type (user_type . (type_identifier) @name) @reference.type)
   (array_type (user_type . (type_identifier) @name) @reference.type)])

(type_annotation
  (user_type . (type_identifier) @name) @reference.type)

; `o as! Foo`, `o as? Foo`: the type a cast names
(as_expression
  (user_type . (type_identifier) @name) @reference.type)

(function_declaration
  (user_type . (type_identifier) @name) @reference.type)

(protocol_function_declaration
  (user_type . (type_identifier) @name) @reference.type)

; ---- imports: `import Foundation`, `import struct Swift.Array` (module Swift, name Array)
((import_declaration
  (identifier) @import.module) @import
  (#not-match? @import "import\\s+(typealias|struct|class|enum|protocol|let|var|func)\\s"))

((import_declaration
  (identifier) @import.path) @import
  (#match? @import "import\\s+(typealias|struct|class|enum|protocol|let|var|func)\\s"))

; ---- value flow (let/var with a value or a type, assignments, for-in, parameters, returns)
; `xs.forEach { $0.go() }`, `xs.map { x in x.go() }`: the closure's first parameter (or `$0`) is each
; element (the closure is the target: parse/flows.py reads its first parameter, else `$0`)
((call_expression
   (navigation_expression
     target: (_) @flow.value
     suffix: (navigation_suffix suffix: (simple_identifier) @_method))
   (call_suffix (lambda_literal) @flow.target)) @flow.iterate
  (#match? @_method "^(forEach|map|compactMap|flatMap|filter|first|last|contains|allSatisfy|sorted|min|max|firstIndex|lastIndex|drop|prefix)$"))

(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @flow.target)
  value: (_) @flow.value) @flow.assign

(property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @flow.target)
  (type_annotation
    (_) @flow.type)) @flow.assign

(assignment
  target: (directly_assignable_expression
    (_) @flow.target)
  result: (_) @flow.value) @flow.assign

(for_statement
  item: (pattern
    bound_identifier: (simple_identifier) @flow.target)
  collection: (_) @flow.value) @flow.iterate

; (an optional or array type is a type too: `o: Box?`, `xs: [Box]`)
(parameter
  (simple_identifier) @flow.target
  .
  [(user_type) (optional_type) (array_type)] @flow.type) @flow.parameter

(control_transfer_statement
  "return"
  result: (_) @flow.value) @flow.return

; a declared return type: a call returns an instance of it (beside what the body returns)
(function_declaration
  [(user_type) (optional_type) (array_type)] @flow.type @flow.return)
