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

; an anonymous function is a definition of its own (named `<lambda>`): calls in its body are its
; calls, and a call of the lambda (`f = lambda x: g(x)`, then `f(1)`) resolves to it
(lambda) @definition.lambda

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

; a base made by a call (`class Manager(BaseManager.from_queryset(QuerySet))`, `namedtuple(…)`,
; `six.with_metaclass(Meta, Base)`): its value is what the call returns, often a class made at run
; time the index cannot see, which is what the resolver needs to know (`unresolved_base`)
(class_definition
  superclasses: (argument_list
    (call) @name @reference.inherit))

; a generic base (`class Child(Base[int])`, `Generic[T]`, `Mapping[str, int]`): the class subscripted
(class_definition
  superclasses: (argument_list
    (subscript
      value: [(identifier) (attribute)] @name @reference.inherit)))

; an annotation: every type it names, at any depth (`Box | None`, `t.Optional[t.Dict[str, t.List[Box]]]`,
; `Callable[[Info[E] | None], R]`, `mod.Box`, the generic itself, forward references `"pkg.Box"`; not
; what `Literal[…]` holds nor `Annotated[…]`'s metadata): read by lazy_intel/parse/type_names.py,
; since a query matches one nesting depth per rule.
(typed_parameter type: (type) @reference.annotation)
(typed_default_parameter type: (type) @reference.annotation)
(function_definition return_type: (type) @reference.annotation)
(assignment type: (type) @reference.annotation)
(type_alias_statement right: (type) @reference.annotation)
(constrained_type (type) (type) @reference.annotation)

; a type alias written as a value (`Handler = t.Callable[["Request"], Response]`, `Opt = Optional[Box]`):
; the parameters of a typing generic assigned (the generic itself stays a read, as any value's)
(assignment
  right: (subscript
    value: [(identifier) @_generic (attribute attribute: (identifier) @_generic)]
    subscript: (_) @reference.annotation)
  (#match? @_generic "^(Optional|Union|Callable|Type|type|List|list|Dict|dict|Tuple|tuple|Set|set|FrozenSet|frozenset|Sequence|MutableSequence|Mapping|MutableMapping|Iterable|Iterator|Generator|AsyncIterable|AsyncIterator|AsyncGenerator|Awaitable|Coroutine|Collection|Container|ClassVar|Final|TypeGuard|Deque|DefaultDict|OrderedDict|ChainMap|AbstractSet|ContextManager|AsyncContextManager|IO|TypeAlias)$"))

; a generic base's parameters: `class Traceback(List[TracebackEntry])`, `class M(Mapping[str, Box])`
(class_definition
  superclasses: (argument_list
    (subscript
      subscript: (_) @reference.annotation)))

; `__all__ = ["Box", "make"]` (also `+=`, a tuple): each string names what the module exports
(module
  (expression_statement
    (assignment
      left: (identifier) @_all
      right: [(list (string (string_content) @name @reference.export))
              (tuple (string (string_content) @name @reference.export))])
    (#eq? @_all "__all__")))
(module
  (expression_statement
    (augmented_assignment
      left: (identifier) @_all
      right: [(list (string (string_content) @name @reference.export))
              (tuple (string (string_content) @name @reference.export))])
    (#eq? @_all "__all__")))

; `except Error:`, `except (A, mod.B) as e:`: the classes a handler catches
(except_clause [(identifier) (attribute)] @name @reference.type)
(except_clause (tuple [(identifier) (attribute)] @name @reference.type))
(except_clause (as_pattern [(identifier) (attribute)] @name @reference.type))
(except_clause (as_pattern (tuple [(identifier) (attribute)] @name @reference.type)))

; `raise Error` instantiates the exception class
((raise_statement
  (identifier) @name) @reference.call
  (#match? @name "^[A-Z]"))

((raise_statement
  (attribute
    object: (_) @receiver
    attribute: (identifier) @name)) @reference.call
  (#match? @name "^[A-Z]"))

; a computed callee: `handlers["a"]()`, `factory()()`, `(f or g)()`
(call
  function: [(subscript) (call) (parenthesized_expression)] @callee) @reference.call

(decorator (identifier) @name @reference.call)

(decorator (attribute attribute: (identifier) @name) @reference.call)

; `obj.size` read (not called): a @property's getter runs; the extractor drops the attribute of a call
(attribute
  object: (_) @receiver
  attribute: (identifier) @name) @reference.read

; `with x as y:` / `with x:` runs x.__enter__() and x.__exit__() (resolved as members of x)
(with_item
  value: (_) @receiver) @reference.with

; `a + b`, `-a`: run a method of the operand (`__add__`, `__neg__`; parse/operators.py)
(binary_operator) @reference.operator
(unary_operator) @reference.operator
; `a += b`: runs `__iadd__`, else `__add__` (parse/operators.py)
(augmented_assignment) @reference.operator

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

; ---- value flow (assignments, loop variables, parameters, returns)
(assignment
  left: (_) @flow.target
  right: (_) @flow.value) @flow.assign

(assignment
  left: (_) @flow.target
  type: (_) @flow.type) @flow.assign

(assignment
  left: (_) @flow.target
  type: (_) @flow.type
  right: (_) @flow.value) @flow.assign

(for_statement
  left: (_) @flow.target
  right: (_) @flow.value) @flow.iterate

(for_in_clause
  left: (_) @flow.target
  right: (_) @flow.value) @flow.iterate

; `map(lambda x: …, xs)`, `filter(…)`, `sorted(xs, key=lambda x: …)`, `xs.sort(key=…)`: the lambda's
; parameter is each element (the flow sits on the parameter, inside the lambda's scope)
((call
   function: (identifier) @_function
   arguments: (argument_list
     .
     (lambda parameters: (lambda_parameters . (identifier) @flow.target @flow.iterate))
     .
     (_) @flow.value))
  (#match? @_function "^(map|filter)$"))

((call
   function: (identifier) @_function
   arguments: (argument_list
     .
     (_) @flow.value
     (keyword_argument
       name: (identifier) @_key
       value: (lambda parameters: (lambda_parameters . (identifier) @flow.target @flow.iterate)))))
  (#match? @_function "^(sorted|min|max)$")
  (#eq? @_key "key"))

((call
   function: (attribute object: (_) @flow.value attribute: (identifier) @_method)
   arguments: (argument_list
     (keyword_argument
       name: (identifier) @_key
       value: (lambda parameters: (lambda_parameters . (identifier) @flow.target @flow.iterate)))))
  (#eq? @_method "sort")
  (#eq? @_key "key"))

; `with cm as x`: x is what `cm.__enter__()` returns (graph/evaluate.py ``entered``)
(with_item
  value: (as_pattern
    (_) @flow.value
    alias: (as_pattern_target (_) @flow.target))) @flow.enter

(function_definition
  parameters: (parameters
    (identifier) @flow.target @flow.parameter))

(function_definition
  parameters: (parameters
    (default_parameter
      name: (identifier) @flow.target
      value: (_) @flow.value) @flow.parameter))

(function_definition
  parameters: (parameters
    (typed_parameter
      (identifier) @flow.target
      type: (_) @flow.type) @flow.parameter))

(function_definition
  parameters: (parameters
    (typed_default_parameter
      name: (identifier) @flow.target
      type: (_) @flow.type
      value: (_) @flow.value) @flow.parameter))

; `*args` is a tuple and `**kwargs` a dict (parse/flows.py gives them those types)
(function_definition
  parameters: (parameters
    [(list_splat_pattern) (dictionary_splat_pattern)] @flow.target @flow.parameter))

(function_definition
  parameters: (parameters
    (typed_parameter
      [(list_splat_pattern) (dictionary_splat_pattern)] @flow.target
      type: (_) @flow.type) @flow.parameter))

(return_statement
  (_) @flow.value) @flow.return

; a declared return type: a call returns an instance of it (beside what the body returns)
(function_definition
  return_type: (_) @flow.type @flow.return)

; a lambda's parameters, and its body is what it returns
(lambda
  parameters: (lambda_parameters
    (identifier) @flow.target @flow.parameter))

(lambda
  parameters: (lambda_parameters
    (default_parameter
      name: (identifier) @flow.target
      value: (_) @flow.value) @flow.parameter))

(lambda
  body: (_) @flow.value) @flow.return

(yield
  (_) @flow.value) @flow.yield
