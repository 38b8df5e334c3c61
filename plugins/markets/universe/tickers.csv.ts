/**
 * The situation universe the project ships: major equities, crypto assets and indices, loaded at
 * first start (see SOURCES.md for where the facts come from and the licence of this list).
 * Columns: symbol,name,exchange,type,rank (lower rank lists first and wins ties in searches).
 */
export const SHIPPED_UNIVERSE_CSV = `symbol,name,exchange,type,rank
AAPL,Apple Inc.,NASDAQ,equity,1
MSFT,Microsoft Corporation,NASDAQ,equity,2
NVDA,NVIDIA Corporation,NASDAQ,equity,3
AMZN,Amazon.com Inc.,NASDAQ,equity,4
GOOGL,Alphabet Inc. Class A,NASDAQ,equity,5
GOOG,Alphabet Inc. Class C,NASDAQ,equity,6
META,Meta Platforms Inc.,NASDAQ,equity,7
BRK-B,Berkshire Hathaway Inc. Class B,NYSE,equity,8
BRK-A,Berkshire Hathaway Inc. Class A,NYSE,equity,9
TSLA,Tesla Inc.,NASDAQ,equity,10
AVGO,Broadcom Inc.,NASDAQ,equity,11
LLY,Eli Lilly and Company,NYSE,equity,12
JPM,JPMorgan Chase & Co.,NYSE,equity,13
V,Visa Inc.,NYSE,equity,14
WMT,Walmart Inc.,NYSE,equity,15
XOM,Exxon Mobil Corporation,NYSE,equity,16
UNH,UnitedHealth Group Incorporated,NYSE,equity,17
MA,Mastercard Incorporated,NYSE,equity,18
ORCL,Oracle Corporation,NYSE,equity,19
COST,Costco Wholesale Corporation,NASDAQ,equity,20
JNJ,Johnson & Johnson,NYSE,equity,21
HD,The Home Depot Inc.,NYSE,equity,22
PG,The Procter & Gamble Company,NYSE,equity,23
NFLX,Netflix Inc.,NASDAQ,equity,24
BAC,Bank of America Corporation,NYSE,equity,25
ABBV,AbbVie Inc.,NYSE,equity,26
CRM,Salesforce Inc.,NYSE,equity,27
KO,The Coca-Cola Company,NYSE,equity,28
CVX,Chevron Corporation,NYSE,equity,29
AMD,Advanced Micro Devices Inc.,NASDAQ,equity,30
MRK,Merck & Co. Inc.,NYSE,equity,31
PEP,PepsiCo Inc.,NASDAQ,equity,32
ADBE,Adobe Inc.,NASDAQ,equity,33
TMO,Thermo Fisher Scientific Inc.,NYSE,equity,34
CSCO,Cisco Systems Inc.,NASDAQ,equity,35
ACN,Accenture plc,NYSE,equity,36
LIN,Linde plc,NASDAQ,equity,37
MCD,McDonald's Corporation,NYSE,equity,38
WFC,Wells Fargo & Company,NYSE,equity,39
ABT,Abbott Laboratories,NYSE,equity,40
IBM,International Business Machines Corporation,NYSE,equity,41
PM,Philip Morris International Inc.,NYSE,equity,42
GE,GE Aerospace,NYSE,equity,43
QCOM,QUALCOMM Incorporated,NASDAQ,equity,44
INTU,Intuit Inc.,NASDAQ,equity,45
TXN,Texas Instruments Incorporated,NASDAQ,equity,46
DIS,The Walt Disney Company,NYSE,equity,47
CAT,Caterpillar Inc.,NYSE,equity,48
VZ,Verizon Communications Inc.,NYSE,equity,49
AMGN,Amgen Inc.,NASDAQ,equity,50
NOW,ServiceNow Inc.,NYSE,equity,51
GS,The Goldman Sachs Group Inc.,NYSE,equity,52
ISRG,Intuitive Surgical Inc.,NASDAQ,equity,53
PFE,Pfizer Inc.,NYSE,equity,54
DHR,Danaher Corporation,NYSE,equity,55
UBER,Uber Technologies Inc.,NYSE,equity,56
CMCSA,Comcast Corporation,NASDAQ,equity,57
T,AT&T Inc.,NYSE,equity,58
SPGI,S&P Global Inc.,NYSE,equity,59
NEE,NextEra Energy Inc.,NYSE,equity,60
RTX,RTX Corporation,NYSE,equity,61
MS,Morgan Stanley,NYSE,equity,62
AXP,American Express Company,NYSE,equity,63
UNP,Union Pacific Corporation,NYSE,equity,64
LOW,Lowe's Companies Inc.,NYSE,equity,65
HON,Honeywell International Inc.,NASDAQ,equity,66
BKNG,Booking Holdings Inc.,NASDAQ,equity,67
AMAT,Applied Materials Inc.,NASDAQ,equity,68
BLK,BlackRock Inc.,NYSE,equity,69
SCHW,The Charles Schwab Corporation,NYSE,equity,70
C,Citigroup Inc.,NYSE,equity,71
BA,The Boeing Company,NYSE,equity,72
SBUX,Starbucks Corporation,NASDAQ,equity,73
PLTR,Palantir Technologies Inc.,NASDAQ,equity,74
INTC,Intel Corporation,NASDAQ,equity,75
MU,Micron Technology Inc.,NASDAQ,equity,76
LMT,Lockheed Martin Corporation,NYSE,equity,77
DE,Deere & Company,NYSE,equity,78
GILD,Gilead Sciences Inc.,NASDAQ,equity,79
MDT,Medtronic plc,NYSE,equity,80
ADP,Automatic Data Processing Inc.,NASDAQ,equity,81
PYPL,PayPal Holdings Inc.,NASDAQ,equity,82
NKE,Nike Inc.,NYSE,equity,83
SHOP,Shopify Inc.,NYSE,equity,84
ABNB,Airbnb Inc.,NASDAQ,equity,85
COIN,Coinbase Global Inc.,NASDAQ,equity,86
MSTR,MicroStrategy Incorporated,NASDAQ,equity,87
SNOW,Snowflake Inc.,NYSE,equity,88
PANW,Palo Alto Networks Inc.,NASDAQ,equity,89
CRWD,CrowdStrike Holdings Inc.,NASDAQ,equity,90
ANET,Arista Networks Inc.,NYSE,equity,91
F,Ford Motor Company,NYSE,equity,92
GM,General Motors Company,NYSE,equity,93
TM,Toyota Motor Corporation,NYSE,equity,94
SONY,Sony Group Corporation,NYSE,equity,95
TSM,Taiwan Semiconductor Manufacturing Company Limited,NYSE,equity,96
ASML,ASML Holding N.V.,NASDAQ,equity,97
BABA,Alibaba Group Holding Limited,NYSE,equity,98
SAP,SAP SE,NYSE,equity,99
NVO,Novo Nordisk A/S,NYSE,equity,100
SPOT,Spotify Technology S.A.,NYSE,equity,101
RIVN,Rivian Automotive Inc.,NASDAQ,equity,102
LCID,Lucid Group Inc.,NASDAQ,equity,103
HOOD,Robinhood Markets Inc.,NASDAQ,equity,104
SQ,Block Inc.,NYSE,equity,105
ARM,Arm Holdings plc,NASDAQ,equity,106
SMCI,Super Micro Computer Inc.,NASDAQ,equity,107
DELL,Dell Technologies Inc.,NYSE,equity,108
HPQ,HP Inc.,NYSE,equity,109
BX,Blackstone Inc.,NYSE,equity,110
KKR,KKR & Co. Inc.,NYSE,equity,111
SPY,SPDR S&P 500 ETF Trust,NYSE Arca,equity,112
QQQ,Invesco QQQ Trust,NASDAQ,equity,113
IWM,iShares Russell 2000 ETF,NYSE Arca,equity,114
GLD,SPDR Gold Shares,NYSE Arca,equity,115
BTC,Bitcoin,crypto,crypto,1
ETH,Ethereum,crypto,crypto,2
USDT,Tether,crypto,crypto,3
XRP,XRP,crypto,crypto,4
BNB,BNB,crypto,crypto,5
SOL,Solana,crypto,crypto,6
USDC,USD Coin,crypto,crypto,7
DOGE,Dogecoin,crypto,crypto,8
TRX,TRON,crypto,crypto,9
ADA,Cardano,crypto,crypto,10
WBTC,Wrapped Bitcoin,crypto,crypto,11
LINK,Chainlink,crypto,crypto,12
AVAX,Avalanche,crypto,crypto,13
XLM,Stellar,crypto,crypto,14
TON,Toncoin,crypto,crypto,15
SHIB,Shiba Inu,crypto,crypto,16
DOT,Polkadot,crypto,crypto,17
BCH,Bitcoin Cash,crypto,crypto,18
LTC,Litecoin,crypto,crypto,19
HBAR,Hedera,crypto,crypto,20
UNI,Uniswap,crypto,crypto,21
DAI,Dai,crypto,crypto,22
NEAR,NEAR Protocol,crypto,crypto,23
APT,Aptos,crypto,crypto,24
ICP,Internet Computer,crypto,crypto,25
PEPE,Pepe,crypto,crypto,26
ETC,Ethereum Classic,crypto,crypto,27
AAVE,Aave,crypto,crypto,28
POL,Polygon Ecosystem Token,crypto,crypto,29
ATOM,Cosmos,crypto,crypto,30
ARB,Arbitrum,crypto,crypto,31
OP,Optimism,crypto,crypto,32
FIL,Filecoin,crypto,crypto,33
XMR,Monero,crypto,crypto,34
ALGO,Algorand,crypto,crypto,35
VET,VeChain,crypto,crypto,36
MKR,Maker,crypto,crypto,37
INJ,Injective,crypto,crypto,38
SUI,Sui,crypto,crypto,39
SEI,Sei,crypto,crypto,40
TIA,Celestia,crypto,crypto,41
LDO,Lido DAO,crypto,crypto,42
RNDR,Render,crypto,crypto,43
GRT,The Graph,crypto,crypto,44
STETH,Lido Staked Ether,crypto,crypto,45
WETH,Wrapped Ether,crypto,crypto,46
CRV,Curve DAO Token,crypto,crypto,47
SAND,The Sandbox,crypto,crypto,48
MANA,Decentraland,crypto,crypto,49
EOS,EOS,crypto,crypto,50
SPX,S&P 500,index,index,1
NDX,Nasdaq-100,index,index,2
DJI,Dow Jones Industrial Average,index,index,3
IXIC,Nasdaq Composite,index,index,4
RUT,Russell 2000,index,index,5
VIX,CBOE Volatility Index,index,index,6
FTSE,FTSE 100,index,index,7
DAX,DAX 40,index,index,8
CAC,CAC 40,index,index,9
N225,Nikkei 225,index,index,10
HSI,Hang Seng Index,index,index,11
STOXX50E,Euro Stoxx 50,index,index,12
SSEC,SSE Composite Index,index,index,13
KOSPI,KOSPI Composite Index,index,index,14
NIFTY,Nifty 50,index,index,15
SENSEX,BSE Sensex,index,index,16
ASX200,S&P/ASX 200,index,index,17
TSX,S&P/TSX Composite Index,index,index,18
IBOV,Bovespa Index,index,index,19
DXY,U.S. Dollar Index,index,index,20
`
