"""theano.printing: opkit.printing's names."""

from opkit.printing import *  # noqa: F403
