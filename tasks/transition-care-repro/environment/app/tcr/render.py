"""Markdown versions of the paper's tables (for the manuscript draft)."""

from . import config

TERM_LABELS = {
    "program": "Transitional care programme",
    "age10": "Age (per 10 years)",
    "male": "Male sex",
    "charlson_2_3": "Charlson index 2-3 (vs 0-1)",
    "charlson_4plus": "Charlson index >= 4 (vs 0-1)",
    "ckd": "Creatinine > 1.5 mg/dL",
    "weight10": "Weight (per 10 kg)",
    "wave2": "Admitted 2021-2022",
}
FLOW_LABELS = {
    "admissions_raw": "Admission records extracted",
    "admissions_unique": "Unique admissions",
    "patients": "Patients",
    "excluded_under18": "Excluded: aged < 18 years",
    "excluded_not_discharged_home": "Excluded: index stay not discharged home",
    "excluded_incomplete_followup": "Excluded: < 30 days of follow-up",
    "excluded_missing_covariates": "Excluded: missing covariates",
    "analytic_cohort": "Analytic cohort",
    "readmitted_30d": "Readmitted within 30 days",
}
ROBUSTNESS_LABELS = {
    "wave1_only": "Wave 1 (2019-2020) only",
    "exclude_charlson_4plus": "Excluding Charlson >= 4",
    "age_65plus": "Aged 65 or over",
}


def fmt_ci(row, digits=2):
    return f"{row['or']:.{digits}f} ({row['ci_low']:.{digits}f}-{row['ci_high']:.{digits}f})"


def flow_table(flow):
    lines = ["| Step | n |", "|---|---:|"]
    for key in config.FLOW_STEPS:
        lines.append(f"| {FLOW_LABELS[key]} | {flow[key]:,} |")
    return "\n".join(lines)


def table2(t2):
    lines = ["| Term | OR (95% CI) |", "|---|---|"]
    for term in config.MODEL_TERMS:
        lines.append(f"| {TERM_LABELS[term]} | {fmt_ci(t2[term])} |")
    return "\n".join(lines)


def table3(t3):
    lines = ["| Analysis | n | Programme OR (95% CI) |", "|---|---:|---|"]
    for name, label in ROBUSTNESS_LABELS.items():
        row = t3[name]
        lines.append(f"| {label} | {row['n']:,} | {fmt_ci(row)} |")
    return "\n".join(lines)


def figure1(fig):
    lines = ["| Age group | Programme n | Programme rate | Usual care n | Usual care rate |",
             "|---|---:|---:|---:|---:|"]
    for label, _, _ in config.AGE_GROUPS:
        p, u = fig[label]["program"], fig[label]["usual_care"]
        pr = "-" if p["rate"] is None else f"{p['rate']:.3f}"
        ur = "-" if u["rate"] is None else f"{u['rate']:.3f}"
        lines.append(f"| {label} | {p['n']} | {pr} | {u['n']} | {ur} |")
    return "\n".join(lines)


def document(results):
    parts = ["## Figure S1 (flow)", flow_table(results["flow"]), "", "## Table 2", table2(results["table2"]), "",
             "## Table 3", table3(results["robustness"]), "", "## Figure 1 data", figure1(results["figure1"]), ""]
    return "\n".join(parts)
