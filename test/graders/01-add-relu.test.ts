import { graderSuite } from "./suite";

graderSuite("01-add-relu");
