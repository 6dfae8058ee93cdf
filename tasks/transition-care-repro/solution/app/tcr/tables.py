"""Table 2 (main model) and the results document."""

import json

from . import config, features, logistic


def table2(members):
    x, y = features.design(members, config.MODEL_TERMS)
    return logistic.odds_ratios(x, y, config.MODEL_TERMS)


def write_results(path, flow, t2, t3, fig1):
    doc = {"flow": {k: flow[k] for k in config.FLOW_STEPS}, "table2": t2, "robustness": t3, "figure1": fig1}
    with open(path, "w") as handle:
        json.dump(doc, handle, indent=2)
        handle.write("\n")
    return doc
