/**
 * @file The guarded language: distributed algorithms as guarded commands.
 * A tree-sitter grammar for editors (highlighting, structure), written
 * from grammar/guarded.pest, the grammar the tool parses with.
 */

/// <reference types="tree-sitter-cli/dsl" />
// @ts-check

const PREC = {
  implies: 1,
  or: 2,
  and: 3,
  not: 4,
  compare: 5,
  add: 6,
  mul: 7,
  neg: 8,
  postfix: 9,
};

const commaSep1 = (rule) => seq(rule, repeat(seq(',', rule)));
const commaSep = (rule) => optional(commaSep1(rule));

module.exports = grammar({
  name: 'guarded',

  word: ($) => $.identifier,

  extras: ($) => [/\s/, $.comment],

  conflicts: ($) => [
    // `forall(p in procs : ...)` in a property: one process at a time, or a quantifier.
    [$.each_process, $.collection],
  ],

  rules: {
    program: ($) => repeat($._item),

    _item: ($) =>
      choice(
        $.param_declaration,
        $.topology_declaration,
        $.enum_declaration,
        $.var_declaration,
        $.def_declaration,
        $.message_declaration,
        $.channel_declaration,
        $.role,
        $.legitimate_declaration,
        $.invariant_declaration,
        $.property_declaration,
        $.report_declaration,
      ),

    comment: (_) =>
      token(choice(seq('//', /[^\n]*/), seq('/*', /[^*]*\*+([^/*][^*]*\*+)*/, '/'))),

    identifier: (_) => /[A-Za-z_][A-Za-z0-9_]*/,
    number: (_) => /[0-9]+/,

    // ---- declarations
    param_declaration: ($) => seq('param', field('name', $.identifier), '=', $._expression),
    topology_declaration: ($) => seq('topology', $.topology_spec),
    topology_spec: (_) => /[A-Za-z0-9:._\-\/]+/,
    enum_declaration: ($) => seq('enum', field('name', $.identifier), '=', $.enum_body),
    enum_body: ($) => seq('{', commaSep1($.identifier), optional(','), '}'),
    var_declaration: ($) =>
      seq(
        choice('var', seq('edge', 'var'), 'timer'),
        field('name', $.identifier),
        ':',
        $._domain,
        optional(
          choice(
            seq($.random_range, optional(seq('=', $._expression))),
            seq('=', $._expression, optional($.random_range)),
          ),
        ),
      ),
    random_range: ($) => seq('random', $._expression, '..', $._expression),
    _domain: ($) =>
      choice(
        'bool',
        'node',
        $.enum_body,
        $.range,
        field('type', $.identifier),
        $.array_domain,
      ),
    range: ($) => prec(1, seq($._expression, '..', $._expression)),
    array_domain: ($) => seq('array', '[', choice('nbrs', $._expression), ']', 'of', $._domain),
    message_declaration: ($) =>
      seq(
        'message',
        field('name', $.identifier),
        optional(seq('(', commaSep($.message_field), ')')),
      ),
    message_field: ($) => seq(field('name', $.identifier), ':', $._domain),
    channel_declaration: ($) =>
      seq(
        'channel',
        'capacity',
        $._expression,
        optional($.random_range),
        optional(seq('delay', $._expression, '..', $._expression)),
      ),
    legitimate_declaration: ($) => seq('legitimate', ':', $._expression),
    invariant_declaration: ($) => seq('invariant', field('name', $.identifier), ':', $._expression),
    report_declaration: ($) => seq('report', field('name', $.identifier), ':', $._expression),
    property_declaration: ($) =>
      seq(
        'property',
        field('name', $.identifier),
        ':',
        choice($.each_process, $._temporal),
        optional(seq('under', choice('weak', 'strong'), 'fairness')),
      ),
    each_process: ($) => seq('forall', '(', $.identifier, 'in', 'procs', ':', $._temporal, ')'),
    _temporal: ($) => choice($.sometimes, $.stable, $.always_eventually, $.always, $.leads_to),
    sometimes: ($) => seq('sometimes', $._expression),
    stable: ($) => seq('stable', $._expression),
    always_eventually: ($) => seq('always', 'eventually', $._expression),
    always: ($) => seq('always', $._expression),
    leads_to: ($) => seq($._expression, 'leads_to', $._expression),
    def_declaration: ($) =>
      seq(
        'def',
        field('name', $.identifier),
        optional($.parameters),
        choice(seq('=', $._expression), $.block),
      ),
    parameters: ($) => seq('(', commaSep($.identifier), ')'),

    // ---- roles and actions
    role: ($) =>
      seq(
        'process',
        optional(seq('where', $._expression)),
        '{',
        repeat(choice($.var_declaration, $.action)),
        '}',
      ),
    action: ($) =>
      seq(
        field('label', $.identifier),
        optional($.priority),
        optional($.binder),
        '::',
        choice($.receive, $._expression),
        '->',
        $.statements,
      ),
    priority: ($) => seq('priority', $._expression),
    binder: ($) => seq('for', $.identifier, 'in', $.collection),
    receive: ($) =>
      prec.right(
        seq(
          'receive',
          field('message', $.identifier),
          optional(seq('(', commaSep($.identifier), ')')),
          'from',
          $.identifier,
          optional(seq('and', $._expression)),
        ),
      ),

    // ---- statements
    statements: ($) => prec.right(seq($._statement, repeat(seq(';', $._statement)), optional(';'))),
    _statement: ($) =>
      choice(
        $.if_statement,
        $.for_statement,
        $.skip,
        $.block,
        $.send_statement,
        $.assignment,
        $.call_statement,
      ),
    skip: (_) => 'skip',
    block: ($) => seq('{', optional($.statements), '}'),
    if_statement: ($) =>
      seq('if', $._expression, $.block, optional(seq('else', choice($.if_statement, $.block)))),
    for_statement: ($) => seq('for', $.identifier, 'in', $.collection, $.block),
    send_statement: ($) =>
      seq(
        'send',
        field('message', $.identifier),
        optional(seq('(', commaSep($._expression), ')')),
        'to',
        $._expression,
      ),
    call_statement: ($) =>
      seq(field('function', $.identifier), optional(seq('(', commaSep($._expression), ')'))),
    assignment: ($) => seq(commaSep1($.target), ':=', commaSep1($._expression)),
    target: ($) =>
      choice(
        seq('edge', '(', $._expression, ')', '.', $.identifier),
        seq($.identifier, optional(seq('[', $._expression, ']'))),
      ),

    // ---- expressions
    _expression: ($) =>
      choice(
        $.binary_expression,
        $.unary_expression,
        $.field_expression,
        $.index_expression,
        $.number,
        $.true,
        $.false,
        $.conditional,
        $.quantifier,
        $.acyclic,
        $.set,
        $.edge,
        $.draw,
        $.builtin_call,
        $.call,
        $.parenthesized,
        $.identifier,
      ),
    true: (_) => 'true',
    false: (_) => 'false',
    binary_expression: ($) => {
      const table = [
        [PREC.or, choice('or', '||')],
        [PREC.and, choice('and', '&&')],
        [PREC.compare, choice('==', '!=', '<=', '>=', '<', '>')],
        [PREC.add, choice('+', '-')],
        [PREC.mul, choice('*', '/', 'mod', '%')],
      ];
      return choice(
        prec.right(PREC.implies, seq($._expression, field('operator', '=>'), $._expression)),
        ...table.map(([p, op]) =>
          prec.left(p, seq($._expression, field('operator', op), $._expression)),
        ),
      );
    },
    unary_expression: ($) =>
      choice(
        prec(PREC.not, seq(field('operator', choice('not', '!')), $._expression)),
        prec(PREC.neg, seq(field('operator', '-'), $._expression)),
      ),
    field_expression: ($) => prec(PREC.postfix, seq($._expression, '.', field('field', $.identifier))),
    index_expression: ($) => prec(PREC.postfix, seq($._expression, '[', $._expression, ']')),
    conditional: ($) =>
      prec.right(seq('if', $._expression, 'then', $._expression, 'else', $._expression)),
    quantifier: ($) =>
      seq(
        field(
          'kind',
          choice('forall', 'exists', 'count', 'sum', 'argmin', 'argmax', 'min', 'max'),
        ),
        '(',
        $.identifier,
        'in',
        $.collection,
        optional(seq(':', $._expression)),
        ')',
      ),
    builtin_call: ($) => seq(field('function', choice('min', 'max')), '(', commaSep1($._expression), ')'),
    collection: ($) =>
      choice(
        'procs',
        seq('nbrs', optional(seq('(', $._expression, ')'))),
        seq($._expression, optional(seq('..', $._expression))),
      ),
    acyclic: ($) =>
      seq('acyclic', '(', $.identifier, '->', $.identifier, ':', $._expression, ')'),
    set: ($) => seq('{', $.identifier, 'in', $.collection, ':', $._expression, '}'),
    edge: ($) => seq('edge', '(', $._expression, optional(seq(',', $._expression)), ')'),
    draw: ($) => seq('random', '(', choice('bool', $.collection), ')'),
    call: ($) => seq(field('function', $.identifier), '(', commaSep($._expression), ')'),
    parenthesized: ($) => seq('(', commaSep1($._expression), ')'),
  },
});
