# Authors: The sklearn_perceptrons developers
# SPDX-License-Identifier: BSD-3-Clause
"""The module names under which the public classes are saved.

pickle and skops record a class by ``cls.__module__`` and its name, and a
reviewer of a skops file trusts classes by those names.  The classes have
moved inside the package since their first release, so each keeps the module
name it was first saved under: files written by any release load in any
other, and a list of trusted names stays valid.
"""

import sys
import types


def keep_module_name(module_name, *classes):
    """Record ``classes`` as defined in ``module_name``.

    Sets ``cls.__module__`` and makes ``module_name`` importable: when it is
    not a module of the package any more, a module object holding just these
    classes is registered under that name, so that ``import module_name``
    (what pickle and skops do on loading) finds them.
    """
    module = sys.modules.get(module_name)
    if module is None:
        module = types.ModuleType(
            module_name,
            f"Where files written by earlier releases find {', '.join(c.__name__ for c in classes)}.",
        )
        sys.modules[module_name] = module
    for cls in classes:
        cls.__module__ = module_name
        setattr(module, cls.__name__, cls)
