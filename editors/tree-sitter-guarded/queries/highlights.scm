; Highlighting for guarded programs. Where several patterns capture a
; node, the later one wins: the general ones come first.

(identifier) @variable

((identifier) @variable.builtin
  (#match? @variable.builtin "^(n|index|id|self|left|right|tree_parent|maxdeg)$"))

(comment) @comment
(number) @number
[(true) (false)] @constant.builtin
(topology_spec) @string.special

[
  "param" "topology" "enum" "var" "timer" "array" "of" "legitimate" "invariant"
  "property" "report" "def" "message" "channel" "capacity" "delay" "process"
  "where" "priority" "for" "in" "receive" "from" "send" "to" "if" "then" "else"
  "random" "under" "weak" "strong" "fairness" "sometimes" "stable" "always"
  "eventually" "leads_to" "procs" "nbrs" "acyclic"
] @keyword

(skip) @keyword
(var_declaration "edge" @keyword)
(edge "edge" @function.builtin)
(target "edge" @function.builtin)
["bool" "node"] @type.builtin
(message_field type: (identifier) @type)
(array_domain type: (identifier) @type)
(var_declaration type: (identifier) @type)

[
  "not" "and" "or" "mod" "=>" "==" "!=" "<=" ">=" "<" ">" "+" "-" "*" "/" "%"
  "!" "&&" "||" ":=" "->" "::" ".."
] @operator

(quantifier kind: _ @function.builtin)
(builtin_call function: _ @function.builtin)

(action label: (identifier) @function)
(def_declaration name: (identifier) @function)
(call function: (identifier) @function.call)
((call function: (identifier) @function.builtin)
  (#match? @function.builtin "^(enabled|abs|int|msgs)$"))
(call_statement function: (identifier) @function.call)

(param_declaration name: (identifier) @constant)
(enum_body (identifier) @constant)
(var_declaration name: (identifier) @property)
(message_declaration name: (identifier) @type)
(enum_declaration name: (identifier) @type)
(send_statement message: (identifier) @type)
(receive message: (identifier) @type)
(invariant_declaration name: (identifier) @label)
(property_declaration name: (identifier) @label)
(report_declaration name: (identifier) @label)
(field_expression field: (identifier) @property)

(each_process "forall" @function.builtin)
