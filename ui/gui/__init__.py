"""The browser GUI (Gradio): the page, its tabs and the logic behind them."""
