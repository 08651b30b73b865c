"""theano.printing: opkit.printing's names, and Theano's pretty printer ``pprint`` with its printers.

An op module registers how its nodes print, ``pprint.assign(op_or_class, FunctionPrinter("name"))``,
and ``pprint(variable)`` returns the math-like string (``pprint(inputs, outputs)`` for a whole
graph). The printers follow Theano 1.0's (BSD-3): ``OperatorPrinter``, ``PatternPrinter``,
``FunctionPrinter``, ``IgnorePrinter``, ``LeafPrinter``, ``DefaultPrinter``, ``PPrinter``.
"""

import copy

from opkit.core.graph import io_toposort
from opkit.core.op import Op
from opkit.printing import *  # noqa: F403
from opkit.printing import debugprint, pydotprint  # noqa: F401

special = {"middle_dot": "\\dot", "big_sigma": "\\Sigma"}
greek = {"alpha": "\\alpha", "beta": "\\beta", "gamma": "\\gamma", "delta": "\\delta", "epsilon": "\\epsilon"}


class PrinterState:
    """What a printing pass carries: the printer, a memo of printed variables, the current precedence."""

    def __init__(self, pprinter, memo=None, **options):
        self.pprinter = pprinter
        self.memo = {} if memo is None else memo
        self.__dict__.update(options)


def _process_with(pstate, variable, precedence):
    old, pstate.precedence = getattr(pstate, "precedence", None), precedence
    try:
        return pstate.pprinter.process(variable, pstate)
    finally:
        pstate.precedence = old


def _owner(output, what):
    if output.owner is None:
        raise TypeError(f"{what} cannot represent a variable that is not the result of an operation")
    return output.owner


class OperatorPrinter:
    """Print a node as ``(a op b)`` (``op a`` for one input); every result is parenthesized, as in Theano."""

    def __init__(self, operator, precedence, assoc="left"):
        if assoc not in ("left", "right", "either"):
            raise ValueError(f"assoc must be 'left', 'right' or 'either', not {assoc!r}")
        self.operator, self.precedence, self.assoc = operator, precedence, assoc

    def process(self, output, pstate):
        if output in pstate.memo:
            return pstate.memo[output]
        node = _owner(output, f"operator {self.operator}")
        last = len(node.inputs) - 1
        strings = [_process_with(pstate, input, self.precedence + (1e-6 if (self.assoc == "left" and i != 0) or
                                                                  (self.assoc == "right" and i != last) else 0))
                   for i, input in enumerate(node.inputs)]
        text = self.operator + strings[0] if len(strings) == 1 else f" {self.operator} ".join(strings)
        pstate.memo[output] = f"({text})"
        return pstate.memo[output]


class PatternPrinter:
    """Print output k of a node by its pattern: ``"%(0)s[%(1)s]"`` names the inputs by position."""

    def __init__(self, *patterns):
        self.patterns = [(p, ()) if isinstance(p, str) else (p[0], tuple(p[1:])) for p in patterns]

    def process(self, output, pstate):
        if output in pstate.memo:
            return pstate.memo[output]
        node = _owner(output, f"patterns {self.patterns}")
        pattern, precedences = self.patterns[node.outputs.index(output)]
        precedences = precedences + (1000,) * len(node.inputs)
        values = {str(i): _process_with(pstate, input, precedence)
                  for i, (input, precedence) in enumerate(zip(node.inputs, precedences))}
        pstate.memo[output] = pattern % values
        return pstate.memo[output]


class FunctionPrinter:
    """Print output k of a node as ``names[k](inputs...)``."""

    def __init__(self, *names):
        self.names = names

    def process(self, output, pstate):
        if output in pstate.memo:
            return pstate.memo[output]
        node = _owner(output, f"function {self.names}")
        arguments = ", ".join(_process_with(pstate, input, -1000) for input in node.inputs)
        pstate.memo[output] = f"{self.names[node.outputs.index(output)]}({arguments})"
        return pstate.memo[output]


class IgnorePrinter:
    """Print a node as its first input (for ops that do not change the value: copies, views, checks)."""

    def process(self, output, pstate):
        if output in pstate.memo:
            return pstate.memo[output]
        node = _owner(output, "IgnorePrinter")
        pstate.memo[output] = pstate.pprinter.process(node.inputs[0], pstate)
        return pstate.memo[output]


class LeafPrinter:
    """Print a variable by its name (Greek letters spelled out become their TeX names)."""

    def process(self, output, pstate):
        if output not in pstate.memo:
            pstate.memo[output] = greek.get(output.name, str(output))
        return pstate.memo[output]


leaf_printer = LeafPrinter()


class DefaultPrinter:
    """Print a node as ``op(inputs...)``, a variable without owner as a leaf."""

    def process(self, output, pstate):
        if output in pstate.memo:
            return pstate.memo[output]
        node = output.owner
        if node is None:
            return leaf_printer.process(output, pstate)
        pstate.memo[output] = f"{node.op}({', '.join(_process_with(pstate, i, -1000) for i in node.inputs)})"
        return pstate.memo[output]


default_printer = DefaultPrinter()


class PPrinter:
    """Choose a printer per variable: by its node's op, the op's class, then by the conditions assigned last first."""

    def __init__(self):
        self.printers = []
        self.printers_dict = {}

    def assign(self, condition, printer):
        """Print the nodes of an op (an instance or a class), or the variables ``condition(pstate, r)`` accepts."""
        if isinstance(condition, (Op, type)):
            self.printers_dict[condition] = printer
        else:
            self.printers.insert(0, (condition, printer))

    def process(self, r, pstate=None):
        if pstate is None:
            pstate = PrinterState(pprinter=self)
        elif isinstance(pstate, dict):
            pstate = PrinterState(pprinter=self, **pstate)
        owner = getattr(r, "owner", None)
        if owner is not None:
            for key in (owner.op, type(owner.op)):
                try:
                    printer = self.printers_dict.get(key)
                except TypeError:  # an unhashable op
                    printer = None
                if printer is not None:
                    return printer.process(r, pstate)
        for condition, printer in self.printers:
            if condition(pstate, r):
                return printer.process(r, pstate)
        return None

    def clone(self):
        made = copy.copy(self)
        made.printers, made.printers_dict = list(self.printers), dict(self.printers_dict)
        return made

    def clone_assign(self, condition, printer):
        made = self.clone()
        made.assign(condition, printer)
        return made

    def process_graph(self, inputs, outputs, updates=None, display_inputs=False):
        """Return the lines computing `outputs` from `inputs`: named variables, then ``return`` or ``out[i] =``."""
        updates = dict(updates or {})
        inputs = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        outputs = list(outputs) if isinstance(outputs, (list, tuple)) else [outputs]
        current = [None]
        printer = self.clone_assign(lambda pstate, r: r.name is not None and r is not current[0], leaf_printer)
        strings = [(0, "inputs: " + ", ".join(map(str, inputs + list(updates))))] if display_inputs else []
        inverse = {id(value): key for key, value in updates.items()}
        i = 1
        for node in io_toposort(inputs + list(updates), outputs + list(updates.values())):
            for output in node.outputs:
                if id(output) in inverse:
                    strings.append((i + 1000, f"{inverse[id(output)]} <- {printer.process(output)}"))
                    i += 1
                if output.name is not None or output in outputs:
                    name = output.name if output.name is not None else f"out[{outputs.index(output)}]"
                    current[0] = output
                    index = 2000 + outputs.index(output) if output in outputs else i
                    line = (f"return {printer.process(output)}" if len(outputs) == 1 and outputs[0] is output
                            else f"{name} = {printer.process(output)}")
                    strings.append((index, line))
                    i += 1
        return "\n".join(text for _, text in sorted(strings, key=lambda item: item[0]))

    def __call__(self, *args):
        if len(args) == 1 or (len(args) == 2 and isinstance(args[1], (PrinterState, dict))):
            return self.process(*args)
        if len(args) >= 2:
            return self.process_graph(*args)
        raise TypeError("Not enough arguments to call.")


pprint = PPrinter()
pprint.assign(lambda pstate, r: True, default_printer)
pp = pprint

__all__ = ["DefaultPrinter", "FunctionPrinter", "IgnorePrinter", "LeafPrinter", "OperatorPrinter", "PPrinter",
           "PatternPrinter", "PrinterState", "debugprint", "default_printer", "greek", "leaf_printer", "pp",
           "pprint", "pydotprint", "special"]
