"""Seeded AP input folders for ap-invoice-close (verifier side).

build(seed, public) -> (files {relative path: text}, tags {invoice_id: set of scenario tags})
"""

import csv
import datetime as dt
import io
import json
import random

CURRENCY_BASE = {"EUR": 1.08, "GBP": 1.27, "CAD": 0.74}
TERMS = ["2/10 net 30", "net 45", "net 30", "1.5/15 net 45", "net 15", "2/10 net 30", "net 60", "net 30"]
NAMES = ["Acme Supplies", "Borealis Parts", "Cobalt Office", "Delta Medical", "Everline Tools",
         "Fjord Logistics", "Granite Labs", "Helix Packaging", "Iris Electric", "Juniper Foods"]
PUBLIC_SEED = 7


def _csv(header, records):
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(records)
    return out.getvalue()


def _money(x):
    return f"{x:.2f}"


class _Builder:
    def __init__(self, seed, public):
        self.rng = rng = random.Random(seed)
        self.public = public
        self.run_date = dt.date(2026, 1, 5) + dt.timedelta(days=rng.randint(0, 300))
        currencies = ["USD", "EUR"] if public else ["USD", "EUR", "GBP", "CAD"]
        self.vendors = []
        for i, name in enumerate(NAMES):
            self.vendors.append({
                "vendor_id": f"V{100 + i * 7 + rng.randint(0, 6)}", "name": name, "status": "active",
                "terms": TERMS[i % len(TERMS)], "bank_changed_on": "",
                "currency": currencies[i % len(currencies)],
                "prefix": rng.choice(["INV", "AC", "B", "CO", "DM", "2026", "F"]),
            })
        rng.shuffle(self.vendors)
        self.special = {}
        if not public:
            self.special["blocked"] = self.vendors[-1]
            self.vendors[-1]["status"] = "blocked"
            self.special["bank_change"] = self.vendors[-2]
            self.vendors[-2]["bank_changed_on"] = (self.run_date - dt.timedelta(days=rng.randint(0, 30))).isoformat()
            self.vendors[-3]["bank_changed_on"] = (self.run_date - dt.timedelta(days=rng.randint(31, 90))).isoformat()
            self.special["old_bank_change"] = self.vendors[-3]
        self.normal = [v for v in self.vendors if v["status"] == "active" and v is not self.special.get("bank_change")]
        self.pos, self.receipts, self.budget = [], [], {}
        self.po_by_vendor = {}
        serial = 50000 + rng.randint(0, 40000)
        for vendor in self.vendors:
            for _ in range(rng.randint(2, 4)):
                serial += rng.randint(1, 9)
                po = {"po_number": f"PO-{serial}", "vendor_id": vendor["vendor_id"],
                      "currency": vendor["currency"], "lines": {}}
                for line in range(1, rng.randint(2, 4) + 1):
                    price = round(rng.choice([rng.uniform(1, 30), rng.uniform(20, 600)]), 2)
                    qty = rng.randint(10, 200)
                    po["lines"][line] = {"sku": f"SKU-{rng.randint(1000, 9999)}", "qty": qty, "price": price}
                    got = qty if rng.random() < 0.6 else rng.randint(qty // 2, qty)
                    first = got if got < 4 or rng.random() < 0.5 else rng.randint(1, got - 1)
                    for part in (first, got - first):
                        if part:
                            self.receipts.append([f"R{len(self.receipts) + 9001}", po["po_number"], line, part,
                                                  (self.run_date - dt.timedelta(days=rng.randint(5, 60))).isoformat()])
                    self.budget[(po["po_number"], line)] = got
                self.pos.append(po)
                self.po_by_vendor.setdefault(vendor["vendor_id"], []).append(po)
        self.invoices, self.tags, self.numbers = [], {}, set()

    # ---------------------------------------------------------------- invoices
    def new_id(self):
        while True:
            ident = f"INV-{self.rng.randint(10000, 99999)}"
            if ident not in self.tags:
                return ident

    def number(self, vendor):
        while True:
            n = f"{vendor['prefix']}-{self.rng.randint(100, 9999)}"
            if n not in self.numbers:
                self.numbers.add(n)
                return n

    def date(self, lo=0, hi=40):
        return self.run_date - dt.timedelta(days=self.rng.randint(lo, hi))

    def lines_for(self, po, share=0.5):
        rng = self.rng
        chosen = rng.sample(sorted(po["lines"]), rng.randint(1, len(po["lines"])))
        lines = []
        for line in sorted(chosen):
            left = self.budget[(po["po_number"], line)]
            if left < 1:
                continue
            qty = max(1, int(left * share * rng.uniform(0.3, 1.0)))
            self.budget[(po["po_number"], line)] -= qty
            lines.append({"po_line": line, "sku": po["lines"][line]["sku"], "qty": qty,
                          "unit_price": po["lines"][line]["price"]})
        return lines

    def add(self, vendor, po, lines, when, tags, number=None, currency=None, po_number=None):
        ident = self.new_id()
        self.invoices.append({
            "invoice_id": ident, "vendor_id": vendor["vendor_id"], "invoice_number": number or self.number(vendor),
            "invoice_date": when.isoformat(), "currency": currency or po["currency"],
            "po_number": po_number or po["po_number"], "lines": lines,
        })
        self.tags[ident] = set(tags)
        return self.invoices[-1]

    def pick(self, terms=None):
        pool = [v for v in self.normal if terms is None or terms(v["terms"])]
        vendor = self.rng.choice(pool)
        return vendor, self.rng.choice(self.po_by_vendor[vendor["vendor_id"]])

    def scenario(self, kind):
        rng = self.rng
        if kind == "clean":
            vendor, po = self.pick()
            self.add(vendor, po, self.lines_for(po) or self.lines_for(po, 0), self.date(), ["clean"])
        elif kind == "discount_window":
            vendor, po = self.pick(lambda t: "/" in t)
            window = int(vendor["terms"].split("/")[1].split()[0])
            self.add(vendor, po, self.lines_for(po), self.date(0, window + 2), ["timing"])
        elif kind == "deferred":
            vendor, po = self.pick(lambda t: "/" not in t and int(t.split()[-1]) >= 45)
            self.add(vendor, po, self.lines_for(po), self.date(0, 25), ["timing"])
        elif kind == "price_variance":
            vendor, po = self.pick()
            lines = self.lines_for(po, 0.3)
            if lines:
                line = rng.choice(lines)
                line["unit_price"] = round(line["unit_price"] * rng.choice([1.04, 1.09, 0.93]) +
                                           rng.choice([0.51, 0.75, -0.6]), 2)
                for l in lines:
                    self.budget[(po["po_number"], l["po_line"])] += l["qty"]
            self.add(vendor, po, lines, self.date(), ["match"])
        elif kind == "price_edge_ok":
            vendor, po = self.pick()
            lines = self.lines_for(po, 0.3)
            for line in lines:
                price = line["unit_price"]
                line["unit_price"] = round(price + (0.49 if price < 25 else price * 0.0195), 2)
            self.add(vendor, po, lines, self.date(), ["match"])
        elif kind == "qty_exceeds":
            vendor, po = self.pick()
            line = rng.choice(sorted(po["lines"]))
            left = self.budget[(po["po_number"], line)]
            self.add(vendor, po, [{"po_line": line, "sku": po["lines"][line]["sku"], "qty": left + rng.randint(1, 5),
                                   "unit_price": po["lines"][line]["price"]}], self.date(), ["match"])
        elif kind == "partial_cumulative":
            vendor, po = self.pick()
            line = rng.choice(sorted(po["lines"]))
            left = self.budget[(po["po_number"], line)]
            if left < 2:
                return self.scenario("clean")
            first = rng.randint(1, left - 1)
            when = self.date(10, 40)
            spec = {"po_line": line, "sku": po["lines"][line]["sku"], "unit_price": po["lines"][line]["price"]}
            self.add(vendor, po, [{**spec, "qty": first}], when, ["match"])
            second = left - first + rng.choice([0, 1, 3])
            self.add(vendor, po, [{**spec, "qty": second}], when + dt.timedelta(days=rng.randint(0, 8)), ["match"])
            self.budget[(po["po_number"], line)] = 0
        elif kind == "no_po":
            vendor, po = self.pick()
            how = rng.choice(["unknown", "other_vendor", "bad_line"])
            if how == "unknown":
                self.add(vendor, po, self.lines_for(po, 0.2), self.date(), ["match"], po_number="PO-10" + str(rng.randint(100, 999)))
            elif how == "other_vendor":
                other = rng.choice([p for p in self.pos if p["vendor_id"] != vendor["vendor_id"]])
                self.add(vendor, other, [{"po_line": 1, "sku": other["lines"][1]["sku"], "qty": 1,
                                          "unit_price": other["lines"][1]["price"]}], self.date(), ["match"],
                         currency=other["currency"])
            else:
                lines = self.lines_for(po, 0.2)
                lines.append({"po_line": len(po["lines"]) + 1, "sku": "SKU-0000", "qty": 2, "unit_price": 9.99})
                self.add(vendor, po, lines, self.date(), ["match"])
        elif kind == "currency_mismatch":
            vendor, po = self.pick()
            other = rng.choice([c for c in ("USD", "EUR", "GBP") if c != po["currency"]])
            self.add(vendor, po, self.lines_for(po, 0.2), self.date(), ["match"], currency=other)
        elif kind == "duplicate":
            vendor, po = self.pick()
            first = self.add(vendor, po, self.lines_for(po, 0.3), self.date(5, 40), ["duplicate"])
            number = first["invoice_number"]
            variant = rng.choice([number.lower(), number.replace("-", " "), number.replace("-", "/"),
                                  number.replace("-", "."), " " + number.replace("-", "") + " "])
            self.add(vendor, po, [dict(l) for l in first["lines"]],
                     dt.date.fromisoformat(first["invoice_date"]) + dt.timedelta(days=rng.randint(1, 4)),
                     ["duplicate"], number=variant.strip() or number)
        elif kind in ("blocked", "bank_change", "old_bank_change"):
            vendor = self.special[kind]
            po = rng.choice(self.po_by_vendor[vendor["vendor_id"]])
            self.add(vendor, po, self.lines_for(po, 0.3), self.date(0, 20), ["vendor"])

    # ---------------------------------------------------------------- output
    def files(self):
        rng = self.rng
        out = {"run.json": json.dumps({"run_date": self.run_date.isoformat()}) + "\n"}
        out["vendors.csv"] = _csv(["vendor_id", "name", "status", "terms", "bank_changed_on"],
                                  [[v["vendor_id"], v["name"], v["status"], v["terms"], v["bank_changed_on"]]
                                   for v in sorted(self.vendors, key=lambda v: v["vendor_id"])])
        out["purchase_orders.csv"] = _csv(
            ["po_number", "vendor_id", "currency", "line", "sku", "qty", "unit_price"],
            [[p["po_number"], p["vendor_id"], p["currency"], n, l["sku"], l["qty"], _money(l["price"])]
             for p in self.pos for n, l in sorted(p["lines"].items())])
        out["receipts.csv"] = _csv(["receipt_id", "po_number", "line", "qty_received", "received_date"], self.receipts)
        fx = []
        holidays = set() if self.public else {self.run_date - dt.timedelta(days=rng.randint(1, 45)) for _ in range(3)}
        for currency, base in CURRENCY_BASE.items():
            rate = base
            for back in range(80, -1, -1):
                when = self.run_date - dt.timedelta(days=back)
                rate *= 1 + rng.gauss(0, 0.004)
                if not self.public and (when.weekday() >= 5 or when in holidays):
                    continue
                fx.append([when.isoformat(), currency, f"{rate:.4f}"])
        fx.sort()
        out["fx_rates.csv"] = _csv(["date", "currency", "usd_per_unit"], fx)
        for inv in self.invoices:
            ident = inv["invoice_id"]
            if not self.public and rng.random() < 0.5:
                self.tags[ident].add("text")
                out[f"invoices/{ident}.txt"] = self.email(inv)
            else:
                body = {k: v for k, v in inv.items() if k != "invoice_id"}
                out[f"invoices/{ident}.json"] = json.dumps(body, indent=2) + "\n"
            if inv["currency"] != "USD":
                self.tags[ident].add("fx")
        return out

    def email(self, inv):
        rng = self.rng
        vendor = next(v for v in self.vendors if v["vendor_id"] == inv["vendor_id"])
        d = dt.date.fromisoformat(inv["invoice_date"])
        total = sum(l["qty"] * l["unit_price"] for l in inv["lines"])
        head = [f"From: billing@{vendor['name'].split()[0].lower()}.example",
                f"Subject: Invoice {inv['invoice_number']} - {vendor['name']}", "",
                rng.choice(["Dear Accounts Payable,", "Hello AP team,", "Hi,"]), "",
                "Please find our invoice details below.", ""]
        fields = [f"Vendor ID: {inv['vendor_id']}",
                  f"{rng.choice(['Invoice No.', 'Invoice #'])}: {inv['invoice_number']}",
                  f"Date: {d.day:02d}/{d.month:02d}/{d.year}",
                  f"{rng.choice(['PO', 'Purchase Order'])}: {inv['po_number']}",
                  f"Currency: {inv['currency']}"]
        rng.shuffle(fields)
        body = [f"Line {l['po_line']}: {l['sku']} qty {l['qty']} @ {l['unit_price']:.2f}" for l in inv["lines"]]
        tail = ["", f"Total due: {total:,.2f} {inv['currency']}", "Payment terms as agreed.", "",
                "Kind regards,", vendor["name"]]
        return "\n".join(head + fields + [""] + body + tail) + "\n"


PUBLIC_MIX = ["clean"] * 5 + ["discount_window"] * 2 + ["deferred"] * 2 + ["price_variance"] * 2 + \
    ["qty_exceeds", "no_po"]
HIDDEN_MIX = 5 * (["clean"] * 6 + ["discount_window"] * 4 + ["deferred"] * 3 + ["price_variance"] * 2 + [
    "price_edge_ok"] * 2 + ["qty_exceeds"] * 2 + ["partial_cumulative"] * 2 + ["no_po"] * 3 + [
    "currency_mismatch"] * 2 + ["duplicate"] * 4 + ["blocked"] * 2 + ["bank_change"] * 2 + ["old_bank_change"] * 2)
"""A hidden month: five times the mix, so every hidden subtask scores 20 or more invoices."""


def build(seed, public=False):
    builder = _Builder(seed, public)
    mix = list(PUBLIC_MIX if public else HIDDEN_MIX)
    builder.rng.shuffle(mix)
    for kind in mix:
        builder.scenario(kind)
    files = builder.files()
    return files, builder.tags


def write(files, root):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
