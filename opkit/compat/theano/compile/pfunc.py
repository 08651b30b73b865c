"""theano.compile.pfunc: ``pfunc``, Theano's core of ``function`` (``params`` for ``inputs``)."""

from opkit.link.function import function


def pfunc(params, outputs=None, mode=None, updates=None, givens=None, no_default_updates=False,
          accept_inplace=False, name=None, rebuild_strict=True, allow_input_downcast=None, profile=None,
          on_unused_input=None, output_keys=None):
    """Return ``opkit.function(params, outputs, ...)``; the options opkit has no counterpart of must keep
    their defaults (a NotImplementedError names the one that does not)."""
    refused = {"no_default_updates": no_default_updates, "accept_inplace": accept_inplace,
               "rebuild_strict": not rebuild_strict, "allow_input_downcast": allow_input_downcast,
               "output_keys": output_keys}
    for option, value in refused.items():
        if value:
            raise NotImplementedError(f"pfunc({option}=...): opkit.function has no such option")
    return function(params, outputs, mode=mode, updates=updates, givens=givens, name=name, profile=profile,
                    on_unused_input=on_unused_input or "raise")


__all__ = ["pfunc"]
