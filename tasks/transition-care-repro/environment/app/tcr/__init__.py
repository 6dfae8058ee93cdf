"""Analysis code for "Nurse-led transitional care and 30-day readmission" (registry study)."""
