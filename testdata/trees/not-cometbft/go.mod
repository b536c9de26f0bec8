module example.com/notcometbft

go 1.24
