document.querySelector("h1").textContent += " (live)";
