module github.com/cometbft/cometbft

go 1.24
