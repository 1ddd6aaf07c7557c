// A generated corpus the project may redistribute: the policy handbook of a fictitious company
// (written for this repository, no outside text), with a golden query set. Each document has its
// own facts in a few sections plus the boilerplate every policy repeats (scope, exceptions,
// contacts), so the words "policy", "employee", "manager", "request" and "approval" are in all of
// them, as in a real handbook. Half the queries use the document's own words; the other half ask
// in other words (a "holiday" for "vacation", "reimbursed" for "refund"), which a lexical ranker
// cannot match and a semantic one might.
import type { EvaluationQuery } from "../../lib/evaluation/schemas";

type Policy = {
  key: string;
  title: string;
  owner: string;
  sections: [heading: string, text: string][];
  /** [query, grade] pairs whose best answer is this document; `also` adds weaker relevant documents. */
  queries: { q: string; also?: string[] }[];
};

const POLICIES: Policy[] = [
  {
    key: "hr/vacation",
    title: "Vacation policy",
    owner: "People team",
    sections: [
      [
        "Entitlement",
        "Every full-time employee accrues 2.5 vacation days per month, 30 days per calendar year. Part-time employees accrue in proportion to their contracted hours.",
      ],
      [
        "Carry-over",
        "Unused vacation days carry over until 31 March of the following year; days not taken by then expire. A manager may approve a carry-over of up to five more days for project reasons.",
      ],
      [
        "Booking",
        "Vacation is requested in the HR portal at least two weeks ahead for absences longer than three days.",
      ],
    ],
    queries: [
      { q: "when do unused vacation days expire", also: ["hr/overtime"] },
      { q: "how much holiday do I get each year" },
    ],
  },
  {
    key: "hr/overtime",
    title: "Overtime and time off in lieu",
    owner: "People team",
    sections: [
      [
        "Compensation",
        "Overtime approved by a manager is compensated as time off in lieu at one and a half hours for every hour worked. Overtime on public holidays counts double.",
      ],
      [
        "Limits",
        "No employee works more than ten hours of overtime in a week. Time off in lieu is taken within three months.",
      ],
    ],
    queries: [{ q: "overtime compensation rate" }, { q: "extra hours on a bank holiday", also: ["hr/vacation"] }],
  },
  {
    key: "hr/parental-leave",
    title: "Parental leave",
    owner: "People team",
    sections: [
      [
        "Leave",
        "Birth parents receive sixteen weeks of paid parental leave, other parents ten weeks. Leave can be split into up to three blocks within the child's first two years.",
      ],
      ["Return", "Employees returning from parental leave may work part-time for six months with the same role."],
    ],
    queries: [{ q: "paid parental leave weeks" }, { q: "maternity leave after the baby is born" }],
  },
  {
    key: "hr/sick-leave",
    title: "Sick leave",
    owner: "People team",
    sections: [
      [
        "Reporting",
        "Report sickness to your manager before 10:00 on the first day. From the fourth consecutive day a doctor's certificate is required.",
      ],
      ["Pay", "Salary is paid in full for the first six weeks of illness, then health insurance sick pay applies."],
    ],
    queries: [{ q: "doctor's certificate sickness" }, { q: "I am ill, who do I tell and by when" }],
  },
  {
    key: "hr/remote-work",
    title: "Remote work",
    owner: "People team",
    sections: [
      [
        "Eligibility",
        "Employees may work remotely up to three days a week after their probation period, agreed with their manager.",
      ],
      [
        "Equipment",
        "The company pays a one-off home office allowance of 400 euros for a desk and chair. Working from abroad needs approval by HR for tax reasons and is limited to twenty days a year.",
      ],
    ],
    queries: [{ q: "home office allowance desk chair" }, { q: "can I work from another country for a few weeks" }],
  },
  {
    key: "finance/expenses",
    title: "Expense reimbursement",
    owner: "Finance",
    sections: [
      [
        "Receipts",
        "Submit expenses in the finance tool within 30 days. Every item above 20 euros needs an itemised receipt; card slips are not receipts.",
      ],
      ["Approval", "Expenses are approved by the cost centre manager and reimbursed with the next monthly salary."],
      ["Not covered", "Alcohol, fines and personal entertainment are never reimbursed."],
    ],
    queries: [
      { q: "expense receipt above 20 euros" },
      { q: "when do I get my money back for a business lunch", also: ["travel/meals"] },
    ],
  },
  {
    key: "finance/corporate-card",
    title: "Corporate credit card",
    owner: "Finance",
    sections: [
      [
        "Issue",
        "Employees who travel more than four times a year may apply for a corporate credit card. The monthly limit is 3,000 euros.",
      ],
      [
        "Loss",
        "A lost or stolen card is blocked at once through the bank's hotline and reported to finance within one working day.",
      ],
    ],
    queries: [{ q: "corporate credit card monthly limit" }, { q: "my company card was stolen" }],
  },
  {
    key: "finance/purchasing",
    title: "Purchasing and purchase orders",
    owner: "Finance",
    sections: [
      [
        "Orders",
        "Purchases above 1,000 euros need a purchase order before the supplier is engaged. Above 10,000 euros three competing quotes are required.",
      ],
      ["Suppliers", "New suppliers are onboarded by procurement, who check their bank details and sanctions status."],
    ],
    queries: [{ q: "three quotes above 10,000 euros" }, { q: "how do we buy something expensive from a new vendor" }],
  },
  {
    key: "finance/refunds",
    title: "Customer refunds",
    owner: "Finance",
    sections: [
      [
        "Approval",
        "Customer refunds up to 500 euros are approved by the support lead, larger refunds by the finance controller.",
      ],
      ["Timing", "Refunds are paid back to the original payment method within fourteen days of approval."],
    ],
    queries: [{ q: "customer refund approval limit" }, { q: "how fast is a customer reimbursed after a return" }],
  },
  {
    key: "it/passwords",
    title: "Passwords and multi-factor authentication",
    owner: "IT security",
    sections: [
      [
        "Passwords",
        "Passwords are at least 14 characters long and unique per system. Use the company password manager; never reuse a personal password.",
      ],
      [
        "MFA",
        "Multi-factor authentication with the authenticator app is mandatory for email, VPN and the HR portal. SMS codes are not accepted.",
      ],
    ],
    queries: [{ q: "minimum password length" }, { q: "second factor for logging into the vpn" }],
  },
  {
    key: "it/laptops",
    title: "Laptops and devices",
    owner: "IT service desk",
    sections: [
      [
        "Refresh",
        "Laptops are replaced every four years, or earlier when a repair would cost more than half of a new device.",
      ],
      ["Loss", "Report a lost laptop to the service desk within one hour so it can be wiped remotely."],
      ["Private devices", "Private phones may read company email only through the managed mail app."],
    ],
    queries: [
      { q: "laptop replacement every four years" },
      { q: "I left my notebook computer on the train", also: ["security/incidents"] },
    ],
  },
  {
    key: "it/software",
    title: "Software installation",
    owner: "IT service desk",
    sections: [
      ["Catalogue", "Approved software is installed from the self-service catalogue without a ticket."],
      [
        "Other software",
        "Software outside the catalogue is requested through a service desk ticket and reviewed by IT security for licensing and data protection within five working days.",
      ],
    ],
    queries: [{ q: "install software not in the catalogue" }, { q: "how long does a new app review take" }],
  },
  {
    key: "it/backups",
    title: "Backups and data retention",
    owner: "IT operations",
    sections: [
      ["Backups", "Servers are backed up nightly; backups are kept for 35 days and tested by a restore every quarter."],
      [
        "Retention",
        "Email is retained for seven years, chat messages for two years, after which they are deleted automatically.",
      ],
    ],
    queries: [
      { q: "how long are backups kept" },
      { q: "are old chat messages deleted eventually", also: ["legal/data-protection"] },
    ],
  },
  {
    key: "security/badges",
    title: "Building access badges",
    owner: "Facilities",
    sections: [
      [
        "Badges",
        "Every employee wears an access badge visibly on site. Visitors are registered at reception and escorted at all times.",
      ],
      [
        "Replacement",
        "A lost badge is reported to reception at once; a replacement badge costs 15 euros after the first one.",
      ],
    ],
    queries: [{ q: "lost access badge replacement cost" }, { q: "do guests need someone with them in the building" }],
  },
  {
    key: "security/incidents",
    title: "Security incident reporting",
    owner: "IT security",
    sections: [
      [
        "Report",
        "Report a suspected security incident, phishing email or data leak to the security team hotline immediately, day or night.",
      ],
      [
        "Do not",
        "Do not delete suspicious emails or switch off an infected computer before the security team says so.",
      ],
    ],
    queries: [{ q: "report a phishing email" }, { q: "I think my computer has a virus, should I turn it off" }],
  },
  {
    key: "security/clean-desk",
    title: "Clean desk",
    owner: "IT security",
    sections: [
      [
        "Desk",
        "Confidential papers are locked away when you leave your desk; screens are locked whenever you step away.",
      ],
      [
        "Printing",
        "Confidential documents are printed with follow-me printing and collected at once; paper waste goes into the locked shredding bins.",
      ],
    ],
    queries: [{ q: "locked shredding bins for confidential paper" }, { q: "what to do with sensitive printouts" }],
  },
  {
    key: "travel/booking",
    title: "Business travel booking",
    owner: "Travel office",
    sections: [
      [
        "Booking",
        "Business trips are booked through the travel portal. Trains are preferred for journeys under five hours.",
      ],
      [
        "Class",
        "Economy class for flights under six hours; business class for longer flights with the approval of a director.",
      ],
    ],
    queries: [{ q: "business class flight approval" }, { q: "should I take the rail or fly for a short trip" }],
  },
  {
    key: "travel/meals",
    title: "Meals and per diem on trips",
    owner: "Travel office",
    sections: [
      [
        "Per diem",
        "On business trips a daily allowance of 28 euros covers meals for a full day, 14 euros for a day of more than eight hours.",
      ],
      ["Hosted meals", "Meals paid by a customer or the company are deducted from the daily allowance."],
    ],
    queries: [{ q: "daily meal allowance business trip" }, { q: "how much food money do I get while travelling" }],
  },
  {
    key: "travel/insurance",
    title: "Travel insurance and emergencies",
    owner: "Travel office",
    sections: [
      [
        "Insurance",
        "All business travellers are covered by the company's travel health insurance worldwide, including medical evacuation.",
      ],
      [
        "Emergencies",
        "In an emergency abroad call the assistance number on the back of your travel card; it answers around the clock.",
      ],
    ],
    queries: [
      { q: "travel health insurance medical evacuation" },
      { q: "who do I call if something goes wrong abroad" },
    ],
  },
  {
    key: "facilities/parking",
    title: "Parking",
    owner: "Facilities",
    sections: [
      [
        "Permits",
        "Parking permits for the underground garage are allocated by seniority and need; the waiting list is kept by facilities.",
      ],
      [
        "Electric cars",
        "Charging points on level -1 are reserved for electric cars while they charge, for at most four hours.",
      ],
    ],
    queries: [{ q: "parking permit waiting list" }, { q: "where can I charge my EV at the office" }],
  },
  {
    key: "facilities/canteen",
    title: "Canteen and kitchen",
    owner: "Facilities",
    sections: [
      [
        "Canteen",
        "The canteen serves lunch from 11:30 to 14:00; the menu is published every Friday for the week after.",
      ],
      ["Kitchens", "Team kitchens are cleaned daily; the fridges are emptied every Friday at 16:00."],
    ],
    queries: [{ q: "canteen lunch opening hours" }, { q: "when is the office fridge cleared out" }],
  },
  {
    key: "legal/data-protection",
    title: "Data protection",
    owner: "Legal",
    sections: [
      [
        "Personal data",
        "Personal data of customers and employees is processed only for the purpose it was collected for and deleted when that purpose ends.",
      ],
      [
        "Requests",
        "Requests from people to see or erase their data are forwarded to the data protection officer within one working day; the answer is due within one month.",
      ],
    ],
    queries: [{ q: "request to erase personal data" }, { q: "a customer wants to know what we store about them" }],
  },
  {
    key: "legal/gifts",
    title: "Gifts and hospitality",
    owner: "Legal",
    sections: [
      [
        "Gifts",
        "Gifts from business partners worth more than 50 euros are declined or declared to the compliance officer.",
      ],
      [
        "Hospitality",
        "Invitations to events are accepted only with a business purpose and the approval of your manager.",
      ],
    ],
    queries: [{ q: "gifts worth more than 50 euros" }, { q: "a supplier offered me concert tickets" }],
  },
  {
    key: "legal/whistleblowing",
    title: "Whistleblowing",
    owner: "Legal",
    sections: [
      [
        "Reporting",
        "Suspected fraud, corruption or other misconduct can be reported anonymously through the whistleblowing portal, run by an external ombudsperson.",
      ],
      ["Protection", "No one who reports in good faith suffers any disadvantage; retaliation is itself misconduct."],
    ],
    queries: [
      { q: "anonymous whistleblowing portal" },
      { q: "how can I report my boss for fraud without giving my name" },
    ],
  },
];

// Each names its policy, as real handbooks do: identical sections would be identical vectors, tied
// at every distance, and ties are broken by chunk ids that differ from run to run.
const BOILERPLATE = (p: Policy) => {
  const name = p.title.toLowerCase();
  return [
    [
      "Scope",
      `The ${name} policy applies to every employee, contractor and intern of the company. It is owned by ${p.owner}, who reviews it once a year.`,
    ],
    [
      "Exceptions",
      `Exceptions to the ${name} policy need a written request and the approval of your manager and the policy owner.`,
    ],
    ["Questions", `Questions about the ${name} policy go to ${p.owner} through the service portal.`],
  ];
};

export type CorpusDocument = { key: string; title: string; markdown: string };

/** The corpus as Markdown documents. */
export function corpus(): CorpusDocument[] {
  return POLICIES.map((p) => ({
    key: p.key.replace("/", "."),
    title: p.title,
    markdown: [
      `# ${p.title}`,
      "",
      ...[...p.sections, ...BOILERPLATE(p)].flatMap(([h, text]) => [`## ${h}`, "", text, ""]),
    ].join("\n"),
  }));
}

/** The golden set: each query's document graded 2, the `also` documents 1. */
export function goldenSet(): EvaluationQuery[] {
  return POLICIES.flatMap((p) =>
    p.queries.map(({ q, also }) => {
      const key = p.key.replace("/", ".");
      const extra = (also ?? []).map((k) => k.replace("/", "."));
      return {
        query: q,
        relevant: [key, ...extra],
        ...(extra.length ? { grades: Object.fromEntries([[key, 2], ...extra.map((k) => [k, 1])]) } : {}),
      };
    }),
  );
}

/** Which queries use the document's own words (even) and which ask in other words (odd). */
export const isParaphrase = (index: number) => index % 2 === 1;
