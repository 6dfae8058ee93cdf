"""The bundled study: its raw data (seed BUNDLE_SEED) and the paper's printed numbers with errata.

``python3 bundle.py ../environment/app`` regenerates data/raw and paper/*.md; the verifier
imports ``errata()`` to know which printed values are wrong."""

import math
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import generate  # noqa: E402
import refimpl  # noqa: E402

BUNDLE_SEED = 2023
BUNDLE_OPTIONS = {"patients": 4200, "edge_rate": 0.05, "program_effect": -0.42}
ERRATA = [
    "flow.excluded_incomplete_followup",
    "table2.program.ci_high",
    "table2.weight10.or",
    "robustness.age_65plus.n",
    "figure1.80+.usual_care.rate",
]


def write_data(directory):
    generate.write(BUNDLE_SEED, directory, **BUNDLE_OPTIONS)


def printed(results):
    """{item: printed text} at the paper's precision, before errata."""
    out = {f"flow.{k}": f"{v:,}" for k, v in results["flow"].items()}
    for term, row in results["table2"].items():
        out.update({f"table2.{term}.{c}": f"{row[c]:.2f}" for c in ("or", "ci_low", "ci_high")})
    for name, row in results["robustness"].items():
        out[f"robustness.{name}.n"] = f"{row['n']:,}"
        out.update({f"robustness.{name}.{c}": f"{row[c]:.2f}" for c in ("or", "ci_low", "ci_high")})
    for group, arms in results["figure1"].items():
        for arm, cell in arms.items():
            out[f"figure1.{group}.{arm}.n"] = f"{cell['n']:,}"
            out[f"figure1.{group}.{arm}.readmitted"] = f"{cell['readmitted']:,}"
            out[f"figure1.{group}.{arm}.rate"] = "-" if cell["rate"] is None else f"{cell['rate']:.3f}"
    return out


def with_errata(results, raw):
    """Printed values with the planted errata, each with a cause a careful reader can find."""
    text = printed(results)
    flow = results["flow"]
    # the authors' follow-up rule counted 30 days from admission, not discharge (flow no longer adds up)
    shorter = refimpl.followup_from_admission_count(raw)
    text["flow.excluded_incomplete_followup"] = f"{shorter:,}"
    ci = text["table2.program.ci_high"]
    swapped = ci[:-2] + ci[-1] + ci[-2]
    text["table2.program.ci_high"] = swapped if swapped != ci else f"{float(ci) + 0.1:.2f}"
    text["table2.weight10.or"] = f"{results['table2']['weight10']['or'] ** 0.1:.2f}"  # per kg, labelled per 10 kg
    text["robustness.age_65plus.n"] = f"{refimpl.count_age_over(raw, 65):,}"  # age > 65 instead of >= 65
    fig = results["figure1"]["80+"]
    text["figure1.80+.usual_care.rate"] = f"{fig['usual_care']['readmitted'] / (fig['usual_care']['n'] + fig['program']['n']):.3f}"
    for item in ERRATA:
        assert text[item] != printed(results)[item], item
    assert flow["excluded_incomplete_followup"] != shorter
    return text


def errata():
    return set(ERRATA)


def _fill(template, text):
    for item, value in sorted(text.items(), key=lambda kv: -len(kv[0])):
        template = template.replace("{" + item + "}", value)
    assert "{" not in template.replace("{{", ""), template[template.index("{"):][:80]
    return template


def main(app):
    app = Path(app)
    raw = app / "data" / "raw"
    write_data(raw)
    results = refimpl.analyse(raw)
    text = with_errata(results, raw)
    for name in ("paper.md", "supplement.md"):
        template = (HERE / "paper_templates" / name).read_text()
        (app / "paper" / name).write_text(_fill(template, text))


if __name__ == "__main__":
    main(sys.argv[1])
