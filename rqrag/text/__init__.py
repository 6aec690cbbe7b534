"""Text as every stage reads it: sentences (`sentences.py`), the language of a text and of an answer
(`languages.py`), whether generated text is usable (`text_quality.py`), and answers normalised and compared the
benchmarks' way (`answer_text.py`)."""
